// onnxq.hash: llama-gguf-hash's manifest rows of a model (the library's hash_model).
#pragma once

#include <pybind11/pybind11.h>

namespace onnxq::python {

void bind_hash(pybind11::module_& module);

}  // namespace onnxq::python
