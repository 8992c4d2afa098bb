// onnxq._onnxq: the compiled half of the onnxq package (python/onnxq/__init__.py re-exports it).
#include <pybind11/pybind11.h>

#include <string>

#include "errors.hpp"
#include "model.hpp"
#include "onnxq/core/version.hpp"
#include "ops.hpp"

PYBIND11_MODULE(_onnxq, m) {
  m.doc() = "onnxq's library bound for Python; use the onnxq package, which re-exports it.";
  m.attr("__version__") = std::string(onnxq::kVersion);
  onnxq::python::bind_errors(m);
  onnxq::python::bind_model(m);
  onnxq::python::bind_ops(m);
}
