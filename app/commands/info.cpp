// onnxq info: a GGUF file's header facts, what the model is, its tokenizer, and tensor counts and
// bytes per type: one facts struct, printed as text, markdown or JSON.
#include <cstdio>
#include <iostream>
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "model_view.hpp"
#include "onnxq/model/model_info.hpp"
#include "partial_model.hpp"
#include "report.hpp"

namespace onnxq::cli {
namespace {

struct InfoOptions {
  std::string path;
  bool json = false;
  bool markdown = false;
};

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

FieldList header_fields(const ModelInfo& f, const std::string& path) {
  FieldList h;
  h.add("file", file_text(path));
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

void print_report(const ModelInfo& f, const std::string& path, OutputFormat format) {
  using A = TextTable::Align;
  const bool md = format == OutputFormat::Markdown;
  print_heading(std::cout, format, 1, path);
  print_fields(std::cout, format, header_fields(f, path));
  const FieldList model = model_fields(f.model);
  if (!model.empty()) {
    std::cout << (md ? "" : "\n");
    print_heading(std::cout, format, 2, "Model");
    print_fields(std::cout, format, model, 2);
  }
  if (f.tokenizer.present) {
    std::cout << (md ? "" : "\n");
    print_heading(std::cout, format, 2, "Tokenizer");
    print_fields(std::cout, format, tokenizer_fields(f.tokenizer, path), 2);
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
    types.add({plain(ggml_type_label(type)), plain(std::to_string(row.tensors)), plain(std::to_string(row.elements)),
               plain(std::to_string(row.bytes)), plain(format_row ? fixed(format_row->bits_per_weight(), 4) : "-")});
  }
  std::cout << (md ? "" : "\n");
  print_heading(std::cout, format, 2, "Tensor types");
  print_table(std::cout, format, types);
}

void run_info(const InfoOptions& opts) {
  const GgufModel model = open_present_shards(opts.path);
  const ModelInfo facts = model_info(model);
  const OutputFormat format = output_format(opts.json, opts.markdown);
  if (format == OutputFormat::Json)
    std::cout << model_info_json(facts, opts.path) << '\n';
  else
    print_report(facts, opts.path, format);
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
