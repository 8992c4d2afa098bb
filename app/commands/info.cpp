// onnxq info: a GGUF file's header facts, what the model is, its tokenizer, and tensor counts and
// bytes per type: one facts struct, printed as text, markdown or JSON.
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <vector>

#include "command.hpp"
#include "common_options.hpp"
#include "metadata_format.hpp"
#include "model_view.hpp"
#include "onnxq/model/tensor_totals.hpp"
#include "partial_model.hpp"
#include "report.hpp"

namespace onnxq::cli {
namespace {

struct InfoOptions {
  std::string path;
  bool json = false;
  bool markdown = false;
};

struct InfoFacts {
  std::string path;
  const GgufFile* named = nullptr;  // header facts are the named file's
  bool split = false;
  std::size_t shard_count = 0;
  std::size_t missing_shards = 0;
  std::uint64_t file_bytes = 0;  // counts and sizes cover every shard present
  std::size_t tensor_count = 0;
  std::map<std::uint32_t, TensorTotals> per_type;
  TensorTotals total;
  std::vector<ShardFacts> shards;  // in shard order, missing ones included
  ModelSummary model;
  TokenizerSummary tokenizer;

  std::string scope() const { return !split ? "file" : missing_shards == 0 ? "model" : "shards present"; }
};

// The format's GGUF name, or "type 142" for a type onnxq does not know.
std::string type_label(std::uint32_t ggml_type) {
  const BlockFormat* format = find_format_by_ggml_type(ggml_type);
  return format ? std::string(format->gguf_name) : "type " + std::to_string(ggml_type);
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

InfoFacts gather(const GgufModel& model, const std::string& path) {
  InfoFacts f;
  f.path = path;
  f.named = &model.named_shard();
  f.split = f.named->split_number > 0;
  f.missing_shards = model.missing_shards().size();
  f.shard_count = model.shards().size() + f.missing_shards;
  f.tensor_count = model.tensors().size();
  f.per_type = totals_by_type(model);
  for (const TensorInfo& t : model.tensors()) f.total.add(t);
  for (const GgufFile& s : model.shards()) f.file_bytes += s.size;
  f.shards = shard_facts(model);
  f.model = summarize_model(model);
  f.tokenizer = summarize_tokenizer(model);
  return f;
}

void print_json(const InfoFacts& f) {
  Json types = Json::array();
  for (const auto& [type, row] : f.per_type) {
    const BlockFormat* format = find_format_by_ggml_type(type);
    types.push_back({{"type", type_label(type)},
                     {"ggml_type", type},
                     {"format_id", format ? Json(format->format_id) : Json(nullptr)},
                     {"tensors", row.tensors},
                     {"elements", row.elements},
                     {"bytes", row.bytes}});
  }
  Json shards = Json::array();
  for (const ShardFacts& s : f.shards) {
    if (!s.present) {
      shards.push_back({{"shard", s.number}, {"path", s.path}, {"present", false}});
      continue;
    }
    shards.push_back({{"shard", s.number},
                      {"path", s.path},
                      {"present", true},
                      {"size", s.size},
                      {"tensors", s.tensors},
                      {"data_offset", s.data_offset},
                      {"n_kv", s.keys}});
  }
  const Json out = {{"file", f.path},
                    {"scope", f.scope()},
                    {"gguf_version", f.named->version},
                    {"endianness", f.named->big_endian ? "big" : "little"},
                    {"alignment", f.named->alignment},
                    {"file_size", f.file_bytes},
                    {"data_offset", f.named->data_offset},
                    {"n_kv", f.named->metadata.size()},
                    {"n_tensors", f.tensor_count},
                    {"parameters", f.total.elements},
                    {"tensor_bytes", f.total.bytes},
                    {"bits_per_weight", f.total.bits_per_weight()},
                    {"types", types},
                    {"shards", shards},
                    {"model", model_json(f.model)},
                    {"tokenizer", tokenizer_json(f.tokenizer)}};
  std::cout << dump_json(out) << '\n';
}

FieldList header_fields(const InfoFacts& f) {
  FieldList h;
  h.add("file", file_text(f.path));
  if (f.split)
    h.add("model", plain("shard " + std::to_string(f.named->split_number) + " of " + std::to_string(f.shard_count) +
                         "; sizes and counts below are for " +
                         (f.missing_shards == 0 ? "the whole model" : "the shards present")));
  h.add("gguf version", plain(std::to_string(f.named->version)));
  h.add("byte order", plain(f.named->big_endian ? "big-endian" : "little-endian"));
  h.add("alignment", plain(std::to_string(f.named->alignment)));
  h.add("file size", plain(std::to_string(f.file_bytes) + " bytes"));
  if (!f.split) {
    h.add("data offset", plain(std::to_string(f.named->data_offset)));
    h.add("metadata keys", plain(std::to_string(f.named->metadata.size())));
  }
  h.add("tensors", plain(std::to_string(f.tensor_count)));
  h.add("parameters", plain(std::to_string(f.total.elements)));
  h.add("tensor bytes", plain(std::to_string(f.total.bytes)));
  h.add("bits per weight", plain(fixed(f.total.bits_per_weight(), 3)));
  if (f.split)
    h.add("shards", plain(std::to_string(f.shard_count) +
                          (f.missing_shards ? " (" + std::to_string(f.missing_shards) + " missing)" : "")));
  return h;
}

void print_report(const InfoFacts& f, OutputFormat format) {
  using A = TextTable::Align;
  const bool md = format == OutputFormat::Markdown;
  print_heading(std::cout, format, 1, f.path);
  print_fields(std::cout, format, header_fields(f));
  const FieldList model = model_fields(f.model);
  if (!model.empty()) {
    std::cout << (md ? "" : "\n");
    print_heading(std::cout, format, 2, "Model");
    print_fields(std::cout, format, model, 2);
  }
  if (f.tokenizer.present) {
    std::cout << (md ? "" : "\n");
    print_heading(std::cout, format, 2, "Tokenizer");
    print_fields(std::cout, format, tokenizer_fields(f.tokenizer, f.path), 2);
  }
  if (f.split) {
    Table shards{{"shard", "file", "data offset", "keys", "tensors", "bytes"},
                 {A::Right, A::Left, A::Right, A::Right, A::Right, A::Right},
                 {}};
    for (const ShardFacts& s : f.shards) {
      if (s.present)
        shards.add({plain(std::to_string(s.number)), file_text(s.path), plain(std::to_string(s.data_offset)),
                    plain(std::to_string(s.keys)), plain(std::to_string(s.tensors)), plain(std::to_string(s.size))});
      else
        shards.add({plain(std::to_string(s.number)), s.path.empty() ? plain("?") : file_text(s.path), plain("missing"),
                    plain("-"), plain("-"), plain("-")});
    }
    std::cout << (md ? "" : "\n");
    print_heading(std::cout, format, 2, "Shards");
    print_table(std::cout, format, shards);
  }
  if (f.per_type.empty()) return;
  Table types{
      {"type", "tensors", "elements", "bytes", "bits/weight"}, {A::Left, A::Right, A::Right, A::Right, A::Right}, {}};
  for (const auto& [type, row] : f.per_type) {
    const BlockFormat* format_row = find_format_by_ggml_type(type);
    types.add({plain(type_label(type)), plain(std::to_string(row.tensors)), plain(std::to_string(row.elements)),
               plain(std::to_string(row.bytes)), plain(format_row ? fixed(format_row->bits_per_weight(), 4) : "-")});
  }
  std::cout << (md ? "" : "\n");
  print_heading(std::cout, format, 2, "Tensor types");
  print_table(std::cout, format, types);
}

void run_info(const InfoOptions& opts) {
  const GgufModel model = open_present_shards(opts.path);
  const InfoFacts facts = gather(model, opts.path);
  const OutputFormat format = output_format(opts.json, opts.markdown);
  if (format == OutputFormat::Json)
    print_json(facts);
  else
    print_report(facts, format);
}

void add_info_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<InfoOptions>();
  CLI::App* cmd = app.add_subcommand(
      "info", "Show what a GGUF model is (architecture, sizes, tokenizer), its layout and its tensor types");
  cmd->footer(
      "The model summary reads <arch>.<name> keys as llama.cpp does (general.file_type as llama.cpp's file type "
      "name); keys that are missing are left out, keys that are unusable are listed as notes. The tokenizer summary "
      "gives each special token's id and text.\n"
      "For a shard of a split model the version, byte order and alignment are the named file's, the sizes and "
      "counts cover the whole model (a 'model:' line says so), and a table lists each shard's own data offset, key "
      "count, tensors and bytes. Missing shards are listed as such after a one-line warning on standard error; the "
      "figures then cover the shards present (JSON: \"scope\").");
  add_gguf_file_argument(*cmd, opts->path);
  add_json_flag(*cmd, opts->json);
  add_markdown_flag(*cmd, opts->markdown);
  cmd->callback([opts] { run_info(*opts); });
}

const CommandRegistration info_registration{"info", 10, &add_info_command};

}  // namespace
}  // namespace onnxq::cli
