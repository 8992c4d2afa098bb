// onnxq merge: the shards of a split model as one GGUF file, without the split.* keys.
#include <iostream>
#include <memory>
#include <string>

#include "command.hpp"
#include "common_options.hpp"
#include "io_settings.hpp"
#include "log.hpp"
#include "onnxq/gguf/split_write.hpp"
#include "output.hpp"
#include "progress.hpp"

namespace onnxq::cli {
namespace {

struct MergeOptions {
  std::string path;
  std::string output;
  bool dry_run = false;
};

void run_merge(const MergeOptions& opts) {
  const GgufModel model = GgufModel::open(opts.path, ShardPolicy::All, io_options());
  const GgufFilePlan plan = gguf_plan_merge(model, opts.output);
  if (opts.dry_run) {
    std::cout << plan.path << '\t' << model.shards().size() << (model.shards().size() == 1 ? " shard\t" : " shards\t")
              << plan.tensors.size() << " tensors\t" << plan.layout.file_size << " bytes; nothing written\n";
    return;
  }
  gguf_write_files(model, {plan}, [](const std::string& path) { return create_output_file(path, {}); });
  log::info("{}: {} shards merged, {}", opts.output, model.shards().size(),
            human_bytes(static_cast<double>(plan.layout.file_size)));
}

void add_merge_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<MergeOptions>();
  CLI::App* cmd = app.add_subcommand("merge", "Merge the shards of a split GGUF model into one file");
  cmd->footer(
      "SHARD is any shard of the set; every shard must be present. The output holds the first shard's metadata "
      "without the split.* keys and every tensor in order, copied byte for byte. An output that is one of the "
      "shards, or is named like a shard (-NNNNN-of-NNNNN.gguf), is refused before anything is written.");
  add_gguf_file_argument(*cmd, opts->path);
  names_path(cmd->add_option("-o,--output", opts->output, "The GGUF file to write"))->required();
  cmd->add_flag("--dry-run", opts->dry_run, "Print the output's name, tensor count and size; write nothing");
  cmd->callback([opts] { run_merge(*opts); });
}

const CommandRegistration merge_registration{"merge", 61, &add_merge_command};

}  // namespace
}  // namespace onnxq::cli
