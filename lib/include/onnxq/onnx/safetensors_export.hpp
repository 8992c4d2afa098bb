// A GGUF model's tensors as safetensors files: which dtype each tensor decodes to (the rule the
// ONNX export uses), the shards a size limit cuts them into (as Hugging Face's writers do), each
// file's header and the index of a split export. Writing the tensors' decoded bytes after each
// header is the caller's, through any sink (doc/commands.md#export).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "onnxq/core/dtype.hpp"
#include "onnxq/gguf/model.hpp"

namespace onnxq {

struct SafetensorsExportTensor {
  const TensorInfo* info;
  DType dtype;          // export_decode_dtype's
  std::uint64_t bytes;  // decoded size
};

struct SafetensorsExportFile {
  std::string name;    // the output itself, or NAME-0000K-of-0000N.safetensors beside it
  std::string header;  // the length prefix and the JSON header, to be followed by the tensors in order
  std::vector<SafetensorsExportTensor> tensors;
};

struct SafetensorsExportPlan {
  std::vector<SafetensorsExportFile> files;
  std::string index_name;  // NAME.safetensors.index.json of a split export; empty for one file
  std::string index_text;
  std::uint64_t bytes_in = 0;   // the tensors' bytes in the model
  std::uint64_t bytes_out = 0;  // decoded
};

// The plan for `tensors` (decodable ones) written to `output` (NAME.safetensors, or "-"), in shards
// of at most `max_shard_bytes` decoded bytes when that is not 0 (a larger tensor gets a shard of its
// own). __metadata__ holds "format": "pt" and the model's string-valued general.* keys. Throws
// Error(Unsupported) for a dtype safetensors lacks, Error(InvalidInput) for a decoded size past 64 bits.
SafetensorsExportPlan plan_safetensors_export(const GgufModel& model, std::span<const TensorInfo* const> tensors,
                                              std::optional<DType> float_dtype, const std::string& output,
                                              std::uint64_t max_shard_bytes);

}  // namespace onnxq
