// onnxq.report: the HTML page `onnxq report` writes (onnxq/report/report.hpp).
#pragma once

#include <pybind11/pybind11.h>

namespace onnxq::python {

void bind_report(pybind11::module_& module);

}  // namespace onnxq::python
