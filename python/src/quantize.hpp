// quants.quantize's kernel: float32 rows to the blocks of one GGML block format.
#pragma once

#include <pybind11/pybind11.h>

namespace onnxq::python {

void bind_quantize(pybind11::module_& m);

}  // namespace onnxq::python
