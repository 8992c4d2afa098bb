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
#include "metadata_format.hpp"
#include "onnxq/decode/isa.hpp"
#include "onnxq/gguf/tensor_reader.hpp"
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

// One shared tensor, as both files have it.
struct TensorDiff {
  std::string name;
  std::string type_a, type_b;
  Shape shape_a, shape_b;
  bool same_bytes = false;
  bool compared = false;  // shapes agree and both types are known, so values were compared
  DifferenceStats diff;
};

// What diff found; everything the text and JSON renderings show.
struct DiffFacts {
  std::string a, b;  // the paths as given
  std::vector<std::string> only_a, only_b;
  std::vector<TensorDiff> tensors;  // in A's order

  std::size_t changed() const {
    return static_cast<std::size_t>(
        std::count_if(tensors.begin(), tensors.end(), [](const TensorDiff& t) { return !t.same_bytes; }));
  }
  bool differ() const { return !only_a.empty() || !only_b.empty() || changed() > 0; }
};

std::string number_text(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

// Whether two tensors of one format hold the same bytes once both are little-endian; compared
// a few blocks at a time so that big-endian data is never copied whole.
bool same_little_endian_bytes(const GgufModel& a, const TensorInfo& ta, const GgufModel& b, const TensorInfo& tb) {
  if (ta.byte_size != tb.byte_size) return false;
  const std::uint64_t blocks = ta.byte_size / ta.format->block_bytes;
  const std::uint64_t step = std::max<std::uint64_t>(1, (256u << 10) / ta.format->block_bytes);
  const TensorReader ra(a, ta), rb(b, tb);
  std::vector<std::byte> scratch_a, scratch_b;
  for (std::uint64_t first = 0; first < blocks; first += step) {
    const std::uint64_t n = std::min(step, blocks - first);
    bool same = false;
    ra.read_blocks(first, n, scratch_a, [&](std::span<const std::byte> x) {
      rb.read_blocks(first, n, scratch_b,
                     [&](std::span<const std::byte> y) { same = std::memcmp(x.data(), y.data(), x.size()) == 0; });
    });
    if (!same) return false;
  }
  return true;
}

// Whether two tensors of one type onnxq does not know hold the same stored bytes. Their byte order
// cannot be undone, so files of different byte orders never compare equal.
bool same_stored_bytes(const GgufModel& a, const TensorInfo& ta, const GgufModel& b, const TensorInfo& tb) {
  if (ta.byte_size != tb.byte_size || a.shards().at(ta.shard).big_endian != b.shards().at(tb.shard).big_endian)
    return false;
  constexpr std::uint64_t kStep = 256u << 10;
  const TensorReader ra(a, ta), rb(b, tb);
  std::vector<std::byte> scratch_a, scratch_b;
  for (std::uint64_t at = 0; at < ta.byte_size; at += kStep) {
    const std::uint64_t n = std::min(kStep, ta.byte_size - at);
    bool same = false;
    ra.read_stored(at, n, scratch_a, [&](std::span<const std::byte> x) {
      rb.read_stored(at, n, scratch_b,
                     [&](std::span<const std::byte> y) { same = std::memcmp(x.data(), y.data(), x.size()) == 0; });
    });
    if (!same) return false;
  }
  return true;
}

bool selected(const DiffOptions& opts, std::string_view name) {
  return opts.filter.empty() || glob_matches(opts.filter, name);
}

// Compares the tensors --filter selects; reports progress on standard error, prints nothing.
DiffFacts compute_diff(const GgufModel& a, const GgufModel& b, const DiffOptions& opts) {
  DiffFacts f;
  f.a = opts.a;
  f.b = opts.b;
  std::vector<std::pair<const TensorInfo*, const TensorInfo*>> pairs;
  std::uint64_t total = 0;
  for (const TensorInfo& t : a.tensors()) {
    if (!selected(opts, t.name)) continue;
    const TensorInfo* other = b.find_tensor(t.name);
    if (!other) {
      f.only_a.emplace_back(t.name);
      continue;
    }
    pairs.emplace_back(&t, other);
    if (t.ne == other->ne) total += t.byte_size;
  }
  for (const TensorInfo& t : b.tensors())
    if (selected(opts, t.name) && !a.find_tensor(t.name)) f.only_b.emplace_back(t.name);

  log::debug("diff: {} shared tensors, {} threads (0: all), ISA {}, chunks of {} elements", pairs.size(), opts.threads,
             active_isa(), kStatsChunkElements);
  Progress progress("diff", total);
  for (const auto& [ta, tb] : pairs) {
    TensorDiff& p = f.tensors.emplace_back();
    p.name = ta->name;
    p.type_a = ta->type_name();
    p.type_b = tb->type_name();
    p.shape_a = ta->onnx_shape();
    p.shape_b = tb->onnx_shape();
    const bool known = ta->format && tb->format;
    p.same_bytes = ta->ggml_type == tb->ggml_type && ta->ne == tb->ne &&
                   (known ? same_little_endian_bytes(a, *ta, b, *tb) : same_stored_bytes(a, *ta, b, *tb));
    if (!known) progress.add(ta->ne == tb->ne ? ta->byte_size : 0);
    if (ta->ne != tb->ne || !known) continue;
    p.compared = true;
    if (p.same_bytes) {
      p.diff.count = ta->element_count;  // identical blocks decode identically
      progress.add(ta->byte_size);
      continue;
    }
    progress.set_label(p.name);
    const TensorReader ra(a, *ta), rb(b, *tb);
    p.diff = compare_tensors(ra, rb, ta->element_count, opts.threads, [&](std::uint64_t n) { progress.add(n); });
    ra.check();
    rb.check();
    log::debug("diff: {}: {} of {} values differ", p.name, p.diff.differing, p.diff.count);
  }
  return f;
}

void render_diff_json(const DiffFacts& f) {
  Json rows = Json::array();
  for (const TensorDiff& p : f.tensors) {
    Json row = {{"name", p.name},        {"type_a", p.type_a},   {"type_b", p.type_b},
                {"shape_a", p.shape_a},  {"shape_b", p.shape_b}, {"identical_bytes", p.same_bytes},
                {"compared", p.compared}};
    if (p.compared) {
      row["elements"] = p.diff.count;
      row["differing"] = p.diff.differing;
      row["nonfinite_differences"] = p.diff.nonfinite;
      row["max_abs"] = p.diff.max_abs;
      row["rms"] = p.diff.rms();
    }
    rows.push_back(std::move(row));
  }
  std::cout << dump_json({{"a", f.a}, {"b", f.b}, {"only_in_a", f.only_a}, {"only_in_b", f.only_b}, {"tensors", rows}})
            << '\n';
}

void render_diff_text(const DiffFacts& f) {
  for (const auto& name : f.only_a) std::cout << "only in A: " << escape_for_terminal(name) << '\n';
  for (const auto& name : f.only_b) std::cout << "only in B: " << escape_for_terminal(name) << '\n';
  if (!f.only_a.empty() || !f.only_b.empty()) std::cout << '\n';
  using A = TextTable::Align;
  TextTable table({"name", "type", "shape", "differing", "max abs", "rms"},
                  {A::Left, A::Left, A::Left, A::Right, A::Right, A::Right});
  for (const TensorDiff& p : f.tensors) {
    const std::string type =
        p.type_a == p.type_b ? std::string(p.type_a) : std::string(p.type_a) + " -> " + std::string(p.type_b);
    const std::string shape = p.shape_a == p.shape_b ? shape_to_string(p.shape_a)
                                                     : shape_to_string(p.shape_a) + " -> " + shape_to_string(p.shape_b);
    if (!p.compared) {
      table.add_row({escape_for_terminal(p.name), type, shape, "-", "-", "-"});
      continue;
    }
    std::string differing = std::to_string(p.diff.differing);
    if (p.diff.nonfinite) differing += " (" + std::to_string(p.diff.nonfinite) + " non-finite)";
    table.add_row(
        {escape_for_terminal(p.name), type, shape, differing, number_text(p.diff.max_abs), number_text(p.diff.rms())});
  }
  table.print(std::cout);
  std::cout << '\n'
            << f.tensors.size() << " tensors in both (" << f.changed() << " changed), " << f.only_a.size()
            << " only in A, " << f.only_b.size() << " only in B\n";
}

void run_diff(const DiffOptions& opts) {
  const GgufModel a = GgufModel::open(opts.a, ShardPolicy::All, io_options());
  const GgufModel b = GgufModel::open(opts.b, ShardPolicy::All, io_options());
  const DiffFacts facts = compute_diff(a, b, opts);
  if (opts.json)
    render_diff_json(facts);
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
