// onnxq report: one self-contained HTML page picturing a model (library: onnxq/report/report.hpp).
// Without --values and --compare only the header is read, so a remote model costs its header.

#include <algorithm>
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "io_settings.hpp"
#include "log.hpp"
#include "onnxq/gguf/tensor_selection.hpp"
#include "onnxq/report/report.hpp"
#include "partial_model.hpp"
#include "progress.hpp"

namespace onnxq::cli {
namespace {

struct ReportCommandOptions {
  std::string path;
  std::string output;
  std::string reference;
  std::string values;
  int threads = 0;
};

void run_report(const ReportCommandOptions& opts) {
  const GgufModel model = open_present_shards(opts.path);
  std::unique_ptr<GgufModel> reference;
  if (!opts.reference.empty())
    reference = std::make_unique<GgufModel>(GgufModel::open(opts.reference, ShardPolicy::All, io_options()));
  if (!opts.values.empty() && std::none_of(model.tensors().begin(), model.tensors().end(),
                                           [&](const TensorInfo& t) { return glob_matches(opts.values, t.name); }))
    log::warn("report: --values '{}' matches no tensor of {}", opts.values, opts.path);
  ReportOptions options;
  options.model_label = opts.path;
  options.reference = reference.get();
  options.reference_label = opts.reference;
  options.values_glob = opts.values;
  options.threads = opts.threads;
  Progress progress("report", report_decoded_bytes(model, options));
  options.on_bytes = [&](std::uint64_t n) { progress.add(n); };
  options.on_tensor = [&](std::string_view name) { progress.set_label(std::string(name)); };
  write_report(opts.output, model, options);
  progress.finish();
  log::info("report: wrote {}", opts.output);
}

void add_report_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<ReportCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Write one self-contained HTML page picturing a model: quantization map, bytes, tensors, values, errors");
  add_gguf_file_argument(*cmd, opts->path);
  names_path(cmd->add_option("-o,--output", opts->output, "The HTML file to write"))->required();
  names_path(cmd->add_option("--compare", opts->reference,
                             "A reference model (e.g. the F16 source): each shared tensor's normalized MSE, RMS and "
                             "max abs error"));
  cmd->add_option("--values", opts->values,
                  "Decode the tensors matching this shell glob: value histogram, statistics, block scale histogram");
  add_threads_option(*cmd, opts->threads);
  cmd->footer(
      "The page holds its data as JSON, its CSS and its script inline; its Content-Security-Policy allows no "
      "request, so it opens from a file:// URL and sends nothing anywhere. Text from the model (names, metadata, "
      "the chat template) is shown as text, never run. Without --values and --compare only the header is read "
      "(for a remote model: its header alone). The normalized MSE is sum((a-b)^2)/sum(b^2) with b the reference, "
      "over the values both decode to float32 as diff does. The file is written whole or not at all.");
  cmd->callback([opts] { run_report(*opts); });
}

const CommandRegistration report_registration{"report", 51, &add_report_command};

}  // namespace
}  // namespace onnxq::cli
