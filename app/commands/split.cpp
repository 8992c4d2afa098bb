// onnxq split: a model cut into gguf-split shards (llama-gguf-split's names and keys), by tensor
// count or by whole-file size; all shards named together once all are complete.
#include <iostream>
#include <memory>
#include <string>

#include "byte_size.hpp"
#include "command.hpp"
#include "common_options.hpp"
#include "io_settings.hpp"
#include "log.hpp"
#include "onnxq/gguf/split_write.hpp"
#include "output.hpp"
#include "progress.hpp"

namespace onnxq::cli {
namespace {

struct SplitOptions {
  std::string path;
  std::string prefix;
  std::string max_size;
  std::uint64_t max_tensors = 0;
  bool no_tensor_first_split = false;
  bool dry_run = false;
};

void run_split(const SplitOptions& opts) {
  GgufSplitLimits limits;
  if (!opts.max_size.empty()) limits.max_bytes = parse_byte_size(opts.max_size);
  if (opts.max_tensors > 0) limits.max_tensors = opts.max_tensors;
  limits.no_tensor_first_split = opts.no_tensor_first_split;
  const GgufModel model = GgufModel::open(opts.path, ShardPolicy::All, io_options());
  const auto plans = gguf_plan_split(model, opts.prefix, limits);
  if (opts.dry_run) {
    for (const GgufFilePlan& p : plans)
      std::cout << p.path << '\t' << p.tensors.size() << (p.tensors.size() == 1 ? " tensor\t" : " tensors\t")
                << p.layout.file_size << " bytes\n";
    std::cout << plans.size() << (plans.size() == 1 ? " shard" : " shards") << "; nothing written\n";
    return;
  }
  std::uint64_t total = 0;
  for (const GgufFilePlan& p : plans) total += p.layout.file_size;
  gguf_write_files(model, plans, [](const std::string& path) { return create_output_file(path, {}); });
  log::info("{}: {} shards, {} in all", opts.prefix, plans.size(), human_bytes(static_cast<double>(total)));
}

void add_split_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<SplitOptions>();
  CLI::App* cmd = app.add_subcommand("split", "Split a GGUF model into shards, as llama-gguf-split does");
  cmd->footer(
      "Writes PREFIX-00001-of-0000N.gguf and so on: the model's metadata in the first shard only, split.no, "
      "split.count and split.tensors.count in every shard, the tensors in order and copied byte for byte. "
      "--max-shard-size (also spelt --max-size) counts whole files (header, metadata, tensor infos, padding and data); "
      "a shard always holds at "
      "least one tensor, even one larger than the limit. The shards are named only when all are complete; "
      "existing files are replaced only then.");
  add_gguf_file_argument(*cmd, opts->path);
  names_path(cmd->add_option("-o,--output", opts->prefix, "The shards' path before -NNNNN-of-NNNNN.gguf"))->required();
  // export's name for the same limit; --max-size, llama-gguf-split's, stays an alias.
  auto* size = cmd->add_option("--max-shard-size,--max-size", opts->max_size,
                               "The largest shard FILE (whole file counted): 500M, 2G (decimal), 2GiB, or bytes");
  auto* count =
      cmd->add_option("--max-tensors", opts->max_tensors, "The most tensors in one shard")->check(CLI::PositiveNumber);
  size->excludes(count);
  cmd->add_flag("--no-tensor-first-split", opts->no_tensor_first_split,
                "The first shard holds the metadata and no tensor");
  cmd->add_flag("--dry-run", opts->dry_run, "Print each shard's name, tensor count and size; write nothing");
  cmd->callback([opts, size, count] {
    if (size->count() == 0 && count->count() == 0)
      throw CLI::ValidationError("--max-shard-size", "give --max-shard-size SIZE or --max-tensors N");
    run_split(*opts);
  });
}

const CommandRegistration split_registration{"split", 59, &add_split_command};

}  // namespace
}  // namespace onnxq::cli
