// onnxq stats: per-tensor value statistics and scale health, decoded on the fly.

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "io_settings.hpp"
#include "log.hpp"
#include "onnxq/core/parallel.hpp"
#include "onnxq/decode/isa.hpp"
#include "onnxq/gguf/tensor_reader.hpp"
#include "onnxq/stats/value_stats.hpp"
#include "progress.hpp"
#include "tensor_selection.hpp"
#include "text_table.hpp"

namespace onnxq::cli {
namespace {

struct StatsOptions {
  std::string path;
  std::vector<std::string> tensors;
  std::string filter;
  bool all = false;
  bool skip_unknown = false;
  bool json = false;
  int threads = 0;
};

std::string number_text(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

// Decodes each tensor once; reports progress on standard error, prints nothing.
std::vector<NamedTensorStats> compute_stats(const GgufModel& model, const std::vector<const TensorInfo*>& tensors,
                                            int threads) {
  std::uint64_t total_bytes = 0;
  for (const TensorInfo* t : tensors) total_bytes += t->byte_size;
  std::vector<NamedTensorStats> rows;
  Progress progress("stats", total_bytes);
  for (const TensorInfo* t : tensors) {
    progress.set_label(std::string(t->name));
    const auto start = std::chrono::steady_clock::now();
    const TensorReader reader(model, *t);
    rows.push_back(
        {std::string(t->name), std::string(t->format->gguf_name), t->onnx_shape(), t->format->is_block_format(),
         compute_tensor_stats(reader, t->element_count, threads, [&](std::uint64_t bytes) { progress.add(bytes); })});
    reader.check();
    log::debug("stats: {} ({}, {} bytes) in {:.3f} ms", t->name, t->format->gguf_name, t->byte_size,
               std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return rows;
}

void render_stats_text(const std::vector<NamedTensorStats>& rows) {
  using A = TextTable::Align;
  TextTable table(
      {"name", "type", "elements", "min", "max", "mean", "std", "zeros", "nan", "inf", "scale nan/inf/sub"},
      {A::Left, A::Left, A::Right, A::Right, A::Right, A::Right, A::Right, A::Right, A::Right, A::Right, A::Right});
  for (const NamedTensorStats& r : rows) {
    const ValueStats& v = r.stats.values;
    const ScaleCounts& s = r.stats.scales;
    auto num = [&](double x) { return v.finite ? number_text(x) : std::string("-"); };
    table.add_row({escape_for_terminal(r.name), r.type, std::to_string(v.count), num(v.min), num(v.max), num(v.mean),
                   num(v.stddev()), std::to_string(v.zeros), std::to_string(v.nan), std::to_string(v.inf),
                   r.block_format
                       ? std::to_string(s.nan) + "/" + std::to_string(s.inf) + "/" + std::to_string(s.subnormal)
                       : std::string("-")});
  }
  table.print(std::cout);
}

void run_stats(const StatsOptions& opts) {
  const GgufModel model = GgufModel::open(opts.path, ShardPolicy::All, io_options());
  const bool everything = opts.all || (opts.tensors.empty() && opts.filter.empty());
  const auto tensors =
      decodable_tensors(model, select_tensors(model, opts.tensors, opts.filter, everything), opts.skip_unknown);
  const int threads = static_cast<int>(resolve_threads(opts.threads));
  log::debug("stats: {} tensors, {} threads, ISA {}, chunks of {} elements", tensors.size(), threads, active_isa(),
             kStatsChunkElements);
  const std::vector<NamedTensorStats> rows = compute_stats(model, tensors, threads);
  if (opts.json)
    std::cout << tensor_stats_json(rows) << '\n';
  else
    render_stats_text(rows);
}

void add_stats_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<StatsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "stats", "Per-tensor min, max, mean, std, zero/NaN/Inf counts and blocks with NaN/Inf/subnormal scales");
  add_gguf_file_argument(*cmd, opts->path);
  repeatable_value(cmd->add_option("--tensor", opts->tensors, "Tensor name; repeatable"));
  add_filter_option(*cmd, opts->filter);
  cmd->add_flag("--all", opts->all, "All tensors (the default when no tensor is chosen)");
  cmd->add_flag("--skip-unknown", opts->skip_unknown,
                "Leave out tensors of types onnxq does not know (naming them), instead of failing");
  add_json_flag(*cmd, opts->json, "null for min/max/mean/std of a tensor without finite values");
  add_threads_option(*cmd, opts->threads);
  cmd->footer(
      "Values are the decoder's float32 output (I32/I64/F64 tensors are rounded to float32). mean and std "
      "(population, ddof=0) are over the finite values, with double accumulators and a fixed chunk order, so "
      "results do not depend on --threads.");
  cmd->callback([opts] { run_stats(*opts); });
}

const CommandRegistration stats_registration{"stats", 52, &add_stats_command};

}  // namespace
}  // namespace onnxq::cli
