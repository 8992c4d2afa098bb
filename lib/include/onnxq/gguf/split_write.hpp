// Splitting a model into gguf-split shards and merging shards back into one file, with
// llama-gguf-split's layout: shards `<prefix>-NNNNN-of-NNNNN.gguf`, the model's metadata in the
// first shard only, and in every shard split.no (u16, from 0), split.count (u16) and
// split.tensors.count (i32, the whole model's). Every file is laid out and written by the GGUF
// writer (writer.hpp), its tensors copied byte for byte (unknown types too).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "onnxq/gguf/metadata.hpp"
#include "onnxq/gguf/model.hpp"
#include "onnxq/gguf/writer.hpp"
#include "onnxq/io/atomic_file.hpp"

namespace onnxq {

// When a shard is full. Exactly one of max_bytes and max_tensors is set.
struct GgufSplitLimits {
  // The whole shard file: header, metadata, tensor infos, padding and data. A shard holds at
  // least one tensor, even one past the limit alone.
  std::optional<std::uint64_t> max_bytes;
  std::optional<std::uint64_t> max_tensors;
  bool no_tensor_first_split = false;  // the first shard holds the metadata and no tensor
};

// One file to write.
struct GgufFilePlan {
  std::string path;
  GgufMetadata metadata;
  std::vector<GgufWriterTensor> tensors;
  GgufLayoutPlan layout;  // layout.file_size: the file's size
};

// The shards of `model` (any model: a single file, or the shards of a split, which are
// re-split). Throws Error(InvalidArgument) for limits that are not one positive number, for more
// than kGgufSplitMaxShards shards (what split.count holds), and for a shard that would be one of the model's
// own files.
std::vector<GgufFilePlan> gguf_plan_split(const GgufModel& model, const std::string& prefix,
                                          const GgufSplitLimits& limits);

// The whole model as one file at `path`: the first shard's metadata without split.*, every tensor
// in order. Throws Error(InvalidArgument) when `path` is named like a shard or is one of the
// model's files (before anything is written).
GgufFilePlan gguf_plan_merge(const GgufModel& model, const std::string& path);

// Writes the planned files in `model`'s byte order and version and names all of them or none
// (FileSet), each created by `create` (default: AtomicFile::create). Returns their paths.
using GgufFileCreator = std::function<AtomicFile(const std::string& path)>;
std::vector<std::string> gguf_write_files(const GgufModel& model, const std::vector<GgufFilePlan>& files,
                                          const GgufFileCreator& create = {});

}  // namespace onnxq
