// onnxq._onnxq: the compiled half of the onnxq package (python/onnxq/__init__.py re-exports it).
#include <pybind11/pybind11.h>

#include <string>

#include "errors.hpp"
#include "export.hpp"
#include "hash.hpp"
#include "model.hpp"
#include "model_quantize.hpp"
#include "onnxq/core/version.hpp"
#include "onnxq/io/mapping_guard.hpp"
#include "ops.hpp"
#include "quantize.hpp"
#include "report.hpp"
#include "writer.hpp"

PYBIND11_MODULE(_onnxq, m) {
  m.doc() = "onnxq's library bound for Python; use the onnxq package, which re-exports it.";
  m.attr("__version__") = std::string(onnxq::kVersion);
  // A mapped file that shrinks while it is read raises OSError instead of killing the interpreter
  // with SIGBUS; faults elsewhere still reach the handler installed before (faulthandler's).
  onnxq::install_mapping_fault_guard();
  onnxq::python::bind_errors(m);
  onnxq::python::bind_model(m);
  onnxq::python::bind_ops(m);
  onnxq::python::bind_quantize(m);
  onnxq::python::bind_model_quantize(m);
  onnxq::python::bind_writer(m);
  onnxq::python::bind_export(m);
  onnxq::python::bind_hash(m);
  onnxq::python::bind_report(m);
}
