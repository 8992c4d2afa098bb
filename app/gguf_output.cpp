// GGUF outputs of edit and convert-endian.
#include "gguf_output.hpp"

#include <CLI/CLI.hpp>

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
  const GgufRewrite written = gguf_rewrite_file(
      model, file, metadata, options, destination.in_place ? std::string() : destination.output,
      [](const std::string& path, const AtomicFile::Options& o) { return create_output_file(path, o); });
  log::info("{}: {} bytes ({} of metadata); tensor data {} copied in the kernel, {} through memory",
            destination.in_place ? file.path : destination.output, written.plan.file_size, written.plan.data_offset,
            human_bytes(static_cast<double>(written.stats.kernel_copied)),
            human_bytes(static_cast<double>(written.stats.buffer_copied)));
  return written.stats;
}

}  // namespace onnxq::cli
