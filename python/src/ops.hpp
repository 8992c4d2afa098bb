// onnxq.dequantize, onnxq.unpack, onnxq.onehot, onnxq.unsqueeze, and the format table and decode
// that onnxq.formats() and onnxq.quants are written over.
#pragma once

#include <pybind11/pybind11.h>

namespace onnxq::python {

void bind_ops(pybind11::module_& module);

}  // namespace onnxq::python
