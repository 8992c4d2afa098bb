// onnxq.open and the Model, TensorInfo and Tensor classes.
#pragma once

#include <pybind11/pybind11.h>

namespace onnxq::python {

void bind_model(pybind11::module_& module);

}  // namespace onnxq::python
