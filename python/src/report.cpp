// onnxq.report over the library's report (onnxq/report/report.hpp), the call `onnxq report` makes.
#include "report.hpp"

#include <pybind11/stl.h>

#include <memory>
#include <optional>

#include "onnxq/gguf/model.hpp"
#include "onnxq/io/io_options.hpp"
#include "onnxq/report/report.hpp"

namespace py = pybind11;
using namespace pybind11::literals;

namespace onnxq::python {
namespace {

std::string report_path(const py::object& path) {
  return py::module_::import("os").attr("fsencode")(path).cast<std::string>();
}

void write_report_file(const py::object& model_path, const py::object& output, const py::object& compare,
                       const std::optional<std::string>& values, const std::optional<int>& threads) {
  ReportOptions options;
  options.model_label = report_path(model_path);
  if (!compare.is_none()) options.reference_label = report_path(compare);
  options.values_glob = values.value_or("");
  if (threads && *threads < 0) throw py::value_error("threads must be >= 0, got " + std::to_string(*threads));
  options.threads = threads.value_or(0);
  const std::string out = report_path(output);
  py::gil_scoped_release release;  // the header read, and any decoding
  const IoOptions io = IoOptions::from_environment();
  const GgufModel model = GgufModel::open(options.model_label, ShardPolicy::All, io);
  std::unique_ptr<GgufModel> reference;
  if (!options.reference_label.empty())
    reference = std::make_unique<GgufModel>(GgufModel::open(options.reference_label, ShardPolicy::All, io));
  options.reference = reference.get();
  write_report(out, model, options);
}

}  // namespace

void bind_report(py::module_& m) {
  m.def("report", &write_report_file, "model"_a, "output"_a, py::kw_only(), "compare"_a = py::none(),
        "values"_a = py::none(), "threads"_a = py::none(), R"doc(
Write output: one self-contained HTML page picturing the GGUF model (a path, any shard of a split
model, or a URL), as `onnxq report` does: overview, quantization map, bytes per layer and type,
the tensor table. values: a shell glob; the matching tensors are decoded (histograms, statistics,
block scales). compare: a reference model; each shared tensor's normalized MSE, RMS and max abs
error. Without either only the header is read. threads: None is all cores. The file is complete or
absent. The GIL is released while the models are read.)doc");
}

}  // namespace onnxq::python
