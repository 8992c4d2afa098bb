#include "model_quantize.hpp"

#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arrays.hpp"
#include "onnxq/convert/model_quantizer.hpp"

namespace py = pybind11;
using namespace pybind11::literals;

namespace onnxq::python {
namespace {

std::string quantize_path_arg(const py::object& path) {
  return py::module_::import("os").attr("fsencode")(path).cast<std::string>();
}

// The plan, one dict per tensor in the input's order (what `onnxq quantize --json` lists).
py::list plan_rows(const ModelQuantizeReport& report) {
  py::list rows;
  for (const QuantizedTensorRow& t : report.tensors)
    rows.append(py::dict("name"_a = t.name, "shape"_a = t.ne, "from_type"_a = ggml_type_display_name(t.plan.from_type),
                         "to_type"_a = ggml_type_display_name(t.plan.to_type), "copied"_a = t.plan.copy,
                         "bytes_before"_a = t.plan.bytes_before, "bytes_after"_a = t.plan.bytes_after,
                         "importance"_a = t.importance, "reason"_a = t.plan.reason));
  return rows;
}

py::list quantize_model_file(const py::object& src, const py::object& dst, const std::string& type,
                             const std::vector<std::pair<std::string, std::string>>& tensor_types,
                             const std::vector<std::string>& keep, const py::object& imatrix, bool allow_requantize,
                             const std::optional<std::string>& arch, bool dry_run, const py::object& threads) {
  ModelQuantizeOptions options;
  options.plan.type = type;
  for (const auto& [glob, name] : tensor_types) {
    const BlockFormat* f = find_override_type(name);
    if (f == nullptr) throw py::value_error("tensor_types: '" + name + "' is not a block format or a float type");
    options.plan.tensor_types.push_back({glob, f->ggml_type});
  }
  options.plan.keep = keep;
  options.plan.allow_requantize = allow_requantize;
  if (!imatrix.is_none()) options.imatrix = quantize_path_arg(imatrix);
  options.architecture = arch.value_or("");
  options.threads = threads_arg(threads);
  options.io = IoOptions::from_environment();
  const std::string in = quantize_path_arg(src);
  if (!dry_run && dst.is_none()) throw py::value_error("dst is needed unless dry_run=True");
  const std::string out = dst.is_none() ? std::string() : quantize_path_arg(dst);
  ModelQuantizeReport report;
  {
    py::gil_scoped_release release;  // reading, quantizing and writing the whole model
    report = dry_run ? plan_model_quantization(in, options) : quantize_model(in, out, options);
  }
  return plan_rows(report);
}

}  // namespace

void bind_model_quantize(py::module_& m) {
  m.def("_quantize_model", &quantize_model_file, "src"_a, "dst"_a, "type"_a, "tensor_types"_a, "keep"_a, "imatrix"_a,
        "allow_requantize"_a, "arch"_a, "dry_run"_a, "threads"_a,
        "onnxq.quantize's engine: the model quantizer; returns the plan, one dict per tensor.");
}

}  // namespace onnxq::python
