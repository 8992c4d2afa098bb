// onnxq meta: a GGUF file's metadata as a table, as JSON, or single values for scripts.
#include <iostream>
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "metadata_format.hpp"
#include "onnxq/core/error.hpp"
#include "output.hpp"
#include "text_table.hpp"

namespace onnxq::cli {
namespace {

constexpr std::size_t kArrayPreview = 8;

struct MetaOptions {
  std::string path;
  std::vector<std::string> keys;
  bool full = false;
  bool json = false;
};

void run_meta(const MetaOptions& opts) {
  // This file's own key-value pairs: a shard of a split model is read alone, siblings or not.
  const GgufFile model = GgufFile::open(opts.path, ShardPolicy::OnlyThisFile);
  if (!opts.keys.empty()) {
    for (const std::string& key : opts.keys)
      if (!model.find_metadata(key)) invalid_input(opts.path + ": no metadata key '" + key + "'");
    if (opts.json) {
      Json out = Json::object();
      for (const std::string& key : opts.keys) out[key] = value_to_json(*model.find_metadata(key));
      std::cout << dump_json(out) << '\n';
      return;
    }
    for (const std::string& key : opts.keys)
      std::cout << value_to_raw(*model.find_metadata(key), stdout_is_terminal()) << '\n';
    return;
  }
  if (opts.json) {
    Json out = Json::array();
    for (const GgufKeyValue& kv : model.metadata()) {
      Json entry = {{"key", kv.key}, {"type", gguf_type_name(kv.value.type())}};
      if (kv.value.type() == GgufType::Array) entry.update(array_type_json(kv.value.as_array()));
      entry["value"] = value_to_json(kv.value);
      out.push_back(std::move(entry));
    }
    std::cout << dump_json(out) << '\n';
    return;
  }
  TextTable table({"key", "type", "value"});
  for (const GgufKeyValue& kv : model.metadata())
    table.add_row({escape_for_terminal(kv.key), value_type_text(kv.value),
                   value_to_text(kv.value, opts.full ? 0 : kArrayPreview)});
  table.print(std::cout);
}

void add_meta_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<MetaOptions>();
  CLI::App* cmd = app.add_subcommand("meta", "Show a GGUF file's metadata (all keys, or chosen values for scripts)");
  cmd->footer(
      "A shard of a split model (NAME-00002-of-00003.gguf) shows its own key-value pairs, whether or not the "
      "other shards are present.");
  add_gguf_file_argument(*cmd, opts->path);
  repeatable_value(cmd->add_option("-k,--key", opts->keys,
                                   "Print only this key's value, unquoted: a string as stored (escaped on a "
                                   "terminal), an array one element per line, each escaped (\\n, \\xNN, \\\\) "
                                   "so that none spans lines; repeatable"));
  cmd->add_flag("--full", opts->full, "Show every array element, not the first " + std::to_string(kArrayPreview));
  add_json_flag(*cmd, opts->json,
                "arrays complete, 64-bit integers exact; an array of arrays lists each inner array's element_type "
                "and count under elements");
  cmd->callback([opts] { run_meta(*opts); });
}

const CommandRegistration registration{"meta", 20, &add_meta_command};

}  // namespace
}  // namespace onnxq::cli
