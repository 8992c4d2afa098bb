// Writing a GGUF file for the commands that rewrite one (edit, convert-endian): to -o OUT, or with
// --in-place beside the input and renamed over it once whole and on disk, never half written.
#pragma once

#include <string>

#include "onnxq/gguf/model.hpp"
#include "onnxq/gguf/writer.hpp"

namespace CLI {
class App;
}

namespace onnxq::cli {

struct GgufDestination {
  std::string output;     // -o
  bool in_place = false;  // --in-place: the input file itself
};

// -o/--output and --in-place on `cmd`, filling `destination`.
void add_destination_options(CLI::App& cmd, GgufDestination& destination);

// Throws CLI::ValidationError unless exactly one of -o and --in-place is given (or neither with
// `dry_run`), and for --in-place on a URL.
void check_destination(const GgufDestination& destination, const std::string& input, bool dry_run);

// Writes `file` (one file of `model`) with `metadata` and its own tensors, laid out by `options`.
GgufWriteStats write_gguf_file(const GgufModel& model, const GgufFile& file, const GgufMetadata& metadata,
                               const GgufWriteOptions& options, const GgufDestination& destination);

}  // namespace onnxq::cli
