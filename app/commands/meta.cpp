// onnxq meta: a GGUF file's metadata as a table (text or markdown), as JSON, or single values for
// scripts: one list of key-value records, printed in the format asked for.
#include <iostream>
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "io_settings.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/gguf/metadata_text.hpp"
#include "onnxq/gguf/model.hpp"
#include "output.hpp"
#include "report.hpp"

namespace onnxq::cli {
namespace {

constexpr std::size_t kArrayPreview = 8;

struct MetaOptions {
  std::string path;
  std::vector<std::string> keys;
  bool full = false;
  bool json = false;
  bool markdown = false;
};

// The records to show: every key, or those asked for (in the order asked).
std::vector<const GgufKeyValue*> gather(const GgufModel& model, const MetaOptions& opts) {
  std::vector<const GgufKeyValue*> records;
  if (opts.keys.empty()) {
    for (const GgufKeyValue& kv : model.metadata()) records.push_back(&kv);
    return records;
  }
  for (const std::string& key : opts.keys) {
    const GgufValue* value = model.find_metadata(key);
    if (!value) invalid_input(opts.path + ": no metadata key '" + key + "'");
    for (const GgufKeyValue& kv : model.metadata())
      if (&kv.value == value) records.push_back(&kv);
  }
  return records;
}

void print_report(const std::vector<const GgufKeyValue*>& records, const MetaOptions& opts, OutputFormat format) {
  const std::size_t preview = opts.full ? 0 : kArrayPreview;
  Table table{{"key", "type", "value"}, {}, {}};
  if (format == OutputFormat::Markdown) {
    print_heading(std::cout, format, 1, opts.path);
    print_paragraph(std::cout, format, std::to_string(records.size()) + " key-value pairs");
    table.header.insert(table.header.begin(), "#");
    table.align = {TextTable::Align::Right};
  }
  std::size_t n = 0;
  for (const GgufKeyValue* kv : records) {
    std::vector<Cell> row = {file_text(kv->key), plain(gguf_value_type_text(kv->value)),
                             code(gguf_value_text(kv->value, preview))};
    if (format == OutputFormat::Markdown) row.insert(row.begin(), plain(std::to_string(++n)));
    table.add(std::move(row));
  }
  print_table(std::cout, format, table);
}

void run_meta(const MetaOptions& opts) {
  // This file's own key-value pairs: a shard of a split model is read alone, siblings or not.
  const GgufModel model = GgufModel::open(opts.path, ShardPolicy::OnlyThisFile, io_options());
  const std::vector<const GgufKeyValue*> records = gather(model, opts);
  const OutputFormat format = output_format(opts.json, opts.markdown);
  if (format == OutputFormat::Json) {
    std::cout << gguf_metadata_json(records, !opts.keys.empty()) << '\n';
    return;
  }
  if (!opts.keys.empty() && format == OutputFormat::Text) {
    for (const GgufKeyValue* kv : records) std::cout << gguf_value_raw(kv->value, stdout_is_terminal()) << '\n';
    return;
  }
  print_report(records, opts, format);
}

void add_meta_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<MetaOptions>();
  CLI::App* cmd = app.add_subcommand("meta", "Show a GGUF file's metadata (all keys, or chosen values for scripts)");
  cmd->footer(
      "A shard of a split model (NAME-00002-of-00003.gguf) shows its own key-value pairs, whether or not the "
      "other shards are present. With --markdown, --key chooses the rows of the table.");
  add_gguf_file_argument(*cmd, opts->path);
  repeatable_value(cmd->add_option("-k,--key", opts->keys,
                                   "Print only this key's value, unquoted: a string as stored (escaped on a "
                                   "terminal), an array one element per line, each escaped (\\n, \\xNN, \\\\) "
                                   "so that none spans lines; repeatable"));
  cmd->add_flag("--full", opts->full, "Show every array element, not the first " + std::to_string(kArrayPreview));
  add_json_flag(*cmd, opts->json,
                "arrays complete, 64-bit integers exact; an array of arrays lists each inner array's element_type "
                "and count under elements");
  add_markdown_flag(*cmd, opts->markdown);
  cmd->callback([opts] { run_meta(*opts); });
}

const CommandRegistration meta_registration{"meta", 20, &add_meta_command};

}  // namespace
}  // namespace onnxq::cli
