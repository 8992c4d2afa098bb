// GGUF outputs of edit and convert-endian.
#include "gguf_output.hpp"

#include <CLI/CLI.hpp>
#include <filesystem>

#include "common_options.hpp"
#include "log.hpp"
#include "output.hpp"
#include "progress.hpp"

namespace onnxq::cli {

void add_destination_options(CLI::App& cmd, GgufDestination& destination) {
  names_path(cmd.add_option("-o,--output", destination.output, "The GGUF file to write"));
  cmd.add_flag("--in-place", destination.in_place,
               "Replace FILE: the new file is written beside it, flushed to disk, then renamed over it");
}

void check_destination(const GgufDestination& destination, const std::string& input, bool dry_run) {
  if (destination.in_place && !destination.output.empty())
    throw CLI::ValidationError("--in-place", "give either -o OUT or --in-place, not both");
  if (!destination.in_place && destination.output.empty() && !dry_run)
    throw CLI::ValidationError("-o", "give -o OUT, or --in-place to replace the input");
  if (destination.in_place && input.find("://") != std::string::npos)
    throw CLI::ValidationError("--in-place", "a remote file cannot be replaced; give -o OUT");
}

GgufWriteStats write_gguf_file(const GgufModel& model, const GgufFile& file, const GgufMetadata& metadata,
                               const GgufWriteOptions& options, const GgufDestination& destination) {
  std::vector<GgufWriterTensor> tensors;
  for (const TensorInfo& t : model.tensors())
    if (&model.shards().at(t.shard) == &file) tensors.push_back(gguf_writer_tensor(model, t));
  const GgufLayoutPlan plan = gguf_plan(metadata, tensors, options);

  AtomicFile::Options file_options;
  std::string target = destination.output;
  if (destination.in_place) {
    // The file a symlink names is replaced, not the link; and the new file reaches the disk before
    // it takes the name of the user's only copy.
    target = std::filesystem::canonical(file.path).string();
    file_options.durable = true;
    file_options.replaces_input = true;
  }
  AtomicFile out = create_output_file(target, file_options);
  const GgufWriteStats stats = gguf_write(out, plan, tensors, options);
  out.commit();
  log::info("{}: {} bytes ({} of metadata); tensor data {} copied in the kernel, {} through memory",
            destination.in_place ? file.path : destination.output, plan.file_size, plan.data_offset,
            human_bytes(static_cast<double>(stats.kernel_copied)),
            human_bytes(static_cast<double>(stats.buffer_copied)));
  return stats;
}

}  // namespace onnxq::cli
