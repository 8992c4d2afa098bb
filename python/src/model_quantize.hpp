// onnxq.quantize: a whole model to GGUF through the library's model quantizer, the call
// `onnxq quantize IN -o OUT.gguf --type T` makes.
#pragma once

#include <pybind11/pybind11.h>

namespace onnxq::python {

void bind_model_quantize(pybind11::module_& m);

}  // namespace onnxq::python
