// onnxq diff: which tensors two GGUF files do not share, which changed type or shape, and
// how far apart the dequantized float32 values of the shared ones are.

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "exit_codes.hpp"
#include "io_settings.hpp"
#include "log.hpp"
#include "onnxq/decode/isa.hpp"
#include "onnxq/diff/model_diff.hpp"
#include "onnxq/stats/value_stats.hpp"
#include "progress.hpp"
#include "tensor_selection.hpp"
#include "text_table.hpp"

namespace onnxq::cli {
namespace {

struct DiffOptions {
  std::string a, b;
  std::string filter;
  bool json = false;
  bool exit_code = false;
  int threads = 0;
};

std::string number_text(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

// Compares the tensors --filter selects; reports progress on standard error, prints nothing.
ModelDifference compute_diff(const GgufModel& a, const GgufModel& b, const DiffOptions& opts) {
  log::debug("diff: {} threads (0: all), ISA {}, chunks of {} elements", opts.threads, active_isa(),
             kStatsChunkElements);
  std::unique_ptr<Progress> progress;
  ModelDiffOptions o;
  if (!opts.filter.empty()) o.selected = [&](std::string_view name) { return glob_matches(opts.filter, name); };
  o.threads = opts.threads;
  o.on_total = [&](std::uint64_t total) { progress = std::make_unique<Progress>("diff", total); };
  o.on_bytes = [&](std::uint64_t n) { progress->add(n); };
  o.on_tensor = [&](std::string_view name) { progress->set_label(std::string(name)); };
  ModelDifference d = diff_models(a, b, o);
  for (const TensorDifference& t : d.tensors)
    if (t.compared) log::debug("diff: {}: {} of {} values differ", t.name, t.values.differing, t.values.count);
  return d;
}

void render_diff_text(const ModelDifference& f) {
  for (const auto& name : f.only_a) std::cout << "only in A: " << escape_for_terminal(name) << '\n';
  for (const auto& name : f.only_b) std::cout << "only in B: " << escape_for_terminal(name) << '\n';
  if (!f.only_a.empty() || !f.only_b.empty()) std::cout << '\n';
  using A = TextTable::Align;
  TextTable table({"name", "type", "shape", "differing", "max abs", "rms"},
                  {A::Left, A::Left, A::Left, A::Right, A::Right, A::Right});
  for (const TensorDifference& p : f.tensors) {
    const std::string type =
        p.type_a == p.type_b ? std::string(p.type_a) : std::string(p.type_a) + " -> " + std::string(p.type_b);
    const std::string shape = p.shape_a == p.shape_b ? shape_to_string(p.shape_a)
                                                     : shape_to_string(p.shape_a) + " -> " + shape_to_string(p.shape_b);
    if (!p.compared) {
      table.add_row({escape_for_terminal(p.name), type, shape, "-", "-", "-"});
      continue;
    }
    std::string differing = std::to_string(p.values.differing);
    if (p.values.nonfinite) differing += " (" + std::to_string(p.values.nonfinite) + " non-finite)";
    table.add_row({escape_for_terminal(p.name), type, shape, differing, number_text(p.values.max_abs),
                   number_text(p.values.rms())});
  }
  table.print(std::cout);
  std::cout << '\n'
            << f.tensors.size() << " tensors in both (" << f.changed() << " changed), " << f.only_a.size()
            << " only in A, " << f.only_b.size() << " only in B\n";
}

void run_diff(const DiffOptions& opts) {
  const GgufModel a = GgufModel::open(opts.a, ShardPolicy::All, io_options());
  const GgufModel b = GgufModel::open(opts.b, ShardPolicy::All, io_options());
  const ModelDifference facts = compute_diff(a, b, opts);
  if (opts.json)
    std::cout << model_difference_json(opts.a, opts.b, facts) << '\n';
  else
    render_diff_text(facts);
  if (opts.exit_code && facts.differ()) throw DifferencesFound{};
}

void add_diff_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<DiffOptions>();
  CLI::App* cmd = app.add_subcommand(
      "diff", "Compare two GGUF files: tensors only in one, type/shape changes, max abs and RMS value differences");
  names_path(cmd->add_option("A", opts->a, "First GGUF file or URL"))->required();
  names_path(cmd->add_option("B", opts->b, "Second GGUF file or URL"))->required();
  add_filter_option(*cmd, opts->filter);
  add_json_flag(*cmd, opts->json);
  cmd->add_flag("--exit-code", opts->exit_code,
                "Exit with status 4 when the files differ, 0 when they do not (as git diff --exit-code)");
  add_threads_option(*cmd, opts->threads);
  cmd->footer(
      "Values are compared after dequantizing both sides to float32, so a tensor re-quantized to another type "
      "is compared too. NaN equals NaN; differences that are not finite are counted apart from max abs and RMS. "
      "A tensor of a type onnxq does not know is compared by its stored bytes only.\n"
      "With --exit-code the files differ when a tensor (of those --filter selects) is in one file only, or a "
      "shared tensor's type, shape or stored bytes changed: the \"changed\" of the summary. Metadata is not "
      "compared. Status 4 is the one hash --check and check use for what they find; 2 and 3 still mean that "
      "a file could not be read.");
  cmd->callback([opts] { run_diff(*opts); });
}

const CommandRegistration diff_registration{"diff", 53, &add_diff_command};

}  // namespace
}  // namespace onnxq::cli
