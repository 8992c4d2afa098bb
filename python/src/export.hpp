// onnxq.export_onnx (export.cpp).
#pragma once

#include <pybind11/pybind11.h>

namespace onnxq::python {

void bind_export(pybind11::module_& module);

}  // namespace onnxq::python
