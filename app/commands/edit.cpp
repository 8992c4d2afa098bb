// onnxq edit: a GGUF file with changed metadata, its tensors copied byte for byte (in the kernel,
// their blocks shared where the file system can: the data section keeps its position modulo 4096).
#include <iostream>
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "gguf_output.hpp"
#include "io_settings.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/gguf/metadata_edit.hpp"
#include "onnxq/io/read_all.hpp"
#include "output.hpp"

namespace onnxq::cli {
namespace {

struct EditOptions {
  std::string path;
  GgufDestination destination;
  MetadataEdits edits;
  std::string chat_template;
  std::string chat_template_file;
  bool dry_run = false;
};

// The file's text; '-': standard input.
std::string text_of(const std::string& path) {
  if (path != "-") return read_text_file(path);
  const auto bytes = read_all(0, "standard input");
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

void print_changes(const std::vector<MetadataChange>& changes) {
  for (const MetadataChange& c : changes) std::cout << metadata_change_line(c) << '\n';
  std::cout << changes.size() << (changes.size() == 1 ? " change" : " changes") << "; tensors untouched\n";
}

void run_edit(EditOptions& opts) {
  check_destination(opts.destination, opts.path, opts.dry_run);
  if (!opts.chat_template.empty() && !opts.chat_template_file.empty())
    throw CLI::ValidationError("--chat-template", "give --chat-template or --chat-template-file, not both");
  if (!opts.chat_template_file.empty()) {
    opts.edits.chat_template = text_of(opts.chat_template_file);
    opts.edits.chat_template_given = true;
  }
  // One file: a shard of a split model is edited alone (its metadata is its own).
  const GgufModel model = GgufModel::open(opts.path, ShardPolicy::OnlyThisFile, io_options());
  const GgufFile& file = model.primary();
  GgufMetadata metadata = GgufMetadata::from_records(file.metadata);
  const auto changes = apply_metadata_edits(metadata, opts.edits);
  const GgufWriteOptions options = gguf_edit_options(file);
  if (opts.dry_run) {
    gguf_plan_rewrite(model, file, metadata, options);  // refuses what the write would refuse
    return print_changes(changes);
  }
  write_gguf_file(model, file, metadata, options, opts.destination);
}

void add_edit_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<EditOptions>();
  CLI::App* cmd = app.add_subcommand("edit", "Change a GGUF file's metadata, copying its tensors untouched");
  cmd->footer(
      "The changes are made in this order: --remove, --rename, --set, --set-json, the chat template, "
      "--special-token. The tensors are copied byte for byte, by the kernel (copy_file_range), and the data "
      "section keeps its position modulo 4096 (a padding string under onnxq.header_padding makes up the "
      "difference), so that btrfs and XFS share the data blocks instead of copying them. A shard of a split "
      "model is edited alone. Keys must be ASCII, as the GGUF specification requires: a file with another key is "
      "read, and mended by --remove or --rename of that key.");
  add_gguf_file_argument(*cmd, opts->path);
  add_destination_options(*cmd, opts->destination);
  repeatable_value(cmd->add_option("--set", opts->edits.set,
                                   "KEY=VALUE: a scalar in the key's own type; a new key needs a type, "
                                   "KEY=TYPE:VALUE (u8 i8 u16 i16 u32 i32 u64 i64 f32 f64 bool str); repeatable"));
  repeatable_value(cmd->add_option("--set-json", opts->edits.set_json,
                                   "KEY=JSON: an array (or scalar) from JSON, in the key's type, or "
                                   "KEY=TYPE:JSON with TYPE the elements' type; repeatable"));
  repeatable_value(
      cmd->add_option("--remove", opts->edits.remove, "Remove the keys matching this shell glob; repeatable"));
  repeatable_value(
      cmd->add_option("--rename", opts->edits.rename, "OLD=NEW: rename a key, keeping its place; repeatable"));
  cmd->add_option("--chat-template", opts->edits.chat_template, "Set tokenizer.chat_template to TEXT")
      ->each([opts](const std::string&) { opts->edits.chat_template_given = true; });
  names_path(cmd->add_option("--chat-template-file", opts->chat_template_file,
                             "Set tokenizer.chat_template to this file's contents ('-' for standard input)"));
  repeatable_value(cmd->add_option("--special-token", opts->edits.special_tokens,
                                   "NAME=TEXT or NAME=#ID, NAME one of bos eos pad unk sep cls mask: the token's id, "
                                   "found in tokenizer.ggml.tokens; repeatable"));
  cmd->add_flag("--dry-run", opts->dry_run,
                "Print what would change, key by key, and write nothing (refusing what the write would refuse)");
  cmd->callback([opts] { run_edit(*opts); });
}

const CommandRegistration edit_registration{"edit", 57, &add_edit_command};

}  // namespace
}  // namespace onnxq::cli
