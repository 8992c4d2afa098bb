// onnxq info: a GGUF file's header facts, tensor counts and bytes per type.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <vector>

#include "command.hpp"
#include "common_options.hpp"
#include "metadata_format.hpp"
#include "partial_model.hpp"
#include "text_table.hpp"

namespace onnxq::cli {
namespace {

struct InfoOptions {
  std::string path;
  bool json = false;
};

struct TypeTotals {
  std::uint64_t tensors = 0;
  std::uint64_t elements = 0;
  std::uint64_t bytes = 0;
};

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

void run_info(const InfoOptions& opts) {
  const GgufFile model = open_present_shards(opts.path);
  // Header facts are the named file's; counts and sizes cover every shard present.
  const GgufShard& first = model.named_shard();
  const bool split = first.split_number > 0;
  const std::size_t shard_count = model.shards().size() + model.missing_shards().size();
  std::map<std::uint32_t, TypeTotals> per_type;
  TypeTotals total;
  for (const TensorInfo& t : model.tensors()) {
    TypeTotals& row = per_type[t.format->ggml_type];
    for (TypeTotals* x : {&row, &total}) {
      x->tensors += 1;
      x->elements += t.element_count;
      x->bytes += t.byte_size;
    }
  }
  std::uint64_t file_bytes = 0;
  for (const auto& s : model.shards()) file_bytes += s.size;
  const double bpw =
      total.elements ? 8.0 * static_cast<double>(total.bytes) / static_cast<double>(total.elements) : 0.0;

  if (opts.json) {
    Json types = Json::array();
    for (const auto& [type, row] : per_type) {
      const BlockFormat* f = find_format_by_ggml_type(type);
      types.push_back({{"type", f->gguf_name},
                       {"ggml_type", type},
                       {"format_id", f->format_id},
                       {"tensors", row.tensors},
                       {"elements", row.elements},
                       {"bytes", row.bytes}});
    }
    Json shards = Json::array();
    for (const auto& s : model.shards())
      shards.push_back({{"shard", s.split_number},
                        {"path", s.path},
                        {"present", true},
                        {"size", s.size},
                        {"tensors", s.tensors.size()},
                        {"data_offset", s.data_offset},
                        {"n_kv", s.metadata.size()}});
    for (const MissingShard& m : model.missing_shards())
      shards.push_back({{"shard", m.split_number}, {"path", m.path}, {"present", false}});
    std::sort(shards.begin(), shards.end(), [](const Json& a, const Json& b) { return a["shard"] < b["shard"]; });
    Json out = {{"file", opts.path},
                {"scope", !split                           ? "file"
                          : model.missing_shards().empty() ? "model"
                                                           : "shards present"},
                {"gguf_version", first.version},
                {"endianness", first.big_endian ? "big" : "little"},
                {"alignment", first.alignment},
                {"file_size", file_bytes},
                {"data_offset", first.data_offset},
                {"n_kv", first.metadata.size()},
                {"n_tensors", model.tensors().size()},
                {"parameters", total.elements},
                {"tensor_bytes", total.bytes},
                {"bits_per_weight", bpw},
                {"types", types},
                {"shards", shards}};
    std::cout << dump_json(out) << '\n';
    return;
  }
  std::cout << "file:            " << escape_for_terminal(opts.path) << '\n';
  if (split)
    std::cout << "model:           shard " << first.split_number << " of " << shard_count
              << "; sizes and counts below are for "
              << (model.missing_shards().empty() ? "the whole model" : "the shards present") << '\n';
  std::cout << "gguf version:    " << first.version << '\n'
            << "byte order:      " << (first.big_endian ? "big-endian" : "little-endian") << '\n'
            << "alignment:       " << first.alignment << '\n'
            << "file size:       " << file_bytes << " bytes\n";
  if (!split)
    std::cout << "data offset:     " << first.data_offset << '\n'
              << "metadata keys:   " << first.metadata.size() << '\n';
  std::cout << "tensors:         " << model.tensors().size() << '\n'
            << "parameters:      " << total.elements << '\n'
            << "tensor bytes:    " << total.bytes << '\n'
            << "bits per weight: " << fixed(bpw, 3) << '\n';
  if (split) {
    std::cout << "shards:          " << shard_count;
    if (!model.missing_shards().empty()) std::cout << " (" << model.missing_shards().size() << " missing)";
    std::cout << '\n';
    using A = TextTable::Align;
    TextTable shards({"shard", "file", "data offset", "keys", "tensors", "bytes"},
                     {A::Right, A::Left, A::Right, A::Right, A::Right, A::Right});
    std::map<int, std::vector<std::string>> rows;
    for (const auto& s : model.shards())
      rows[s.split_number] = {std::to_string(s.split_number),   escape_for_terminal(s.path),
                              std::to_string(s.data_offset),    std::to_string(s.metadata.size()),
                              std::to_string(s.tensors.size()), std::to_string(s.size)};
    for (const MissingShard& m : model.missing_shards())
      rows[m.split_number] = {
          std::to_string(m.split_number), m.path.empty() ? "?" : escape_for_terminal(m.path), "missing", "-", "-", "-"};
    for (auto& [number, row] : rows) shards.add_row(std::move(row));
    std::cout << '\n';
    shards.print(std::cout);
  }
  if (per_type.empty()) return;
  std::cout << '\n';
  using A = TextTable::Align;
  TextTable table({"type", "tensors", "elements", "bytes", "bits/weight"},
                  {A::Left, A::Right, A::Right, A::Right, A::Right});
  for (const auto& [type, row] : per_type) {
    const BlockFormat* f = find_format_by_ggml_type(type);
    table.add_row({std::string(f->gguf_name), std::to_string(row.tensors), std::to_string(row.elements),
                   std::to_string(row.bytes), fixed(f->bits_per_weight(), 4)});
  }
  table.print(std::cout);
}

void add_info_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<InfoOptions>();
  CLI::App* cmd = app.add_subcommand("info", "Show a GGUF file's version, layout, tensor counts and sizes per type");
  cmd->footer(
      "For a shard of a split model the version, byte order and alignment are the named file's, the sizes and "
      "counts cover the whole model (a 'model:' line says so), and a table lists each shard's own data offset, key "
      "count, tensors and bytes. Missing shards are listed as such after a one-line warning on standard error; the "
      "figures then cover the shards present (JSON: \"scope\").");
  add_gguf_file_argument(*cmd, opts->path);
  add_json_flag(*cmd, opts->json);
  cmd->callback([opts] { run_info(*opts); });
}

const CommandRegistration registration{"info", 10, &add_info_command};

}  // namespace
}  // namespace onnxq::cli
