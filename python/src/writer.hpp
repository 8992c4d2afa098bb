// onnxq.edit and onnxq.convert_endian: the library's GGUF writer (onnxq/gguf/writer.hpp).
#pragma once

#include <pybind11/pybind11.h>

namespace onnxq::python {

void bind_writer(pybind11::module_& module);

}  // namespace onnxq::python
