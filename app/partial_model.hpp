// Opening a split model of which some shards may be absent (a partial download, a renamed
// file): info, list and dequant inspect the shards that are there, after a one-line warning.
#pragma once

#include <string>

#include "onnxq/gguf/model.hpp"
#include "onnxq/gguf/tensor_selection.hpp"

namespace onnxq::cli {

// GgufModel::open with ShardPolicy::AllowMissing; warns on stderr when shards are missing.
GgufModel open_present_shards(const std::string& path);

// The 1-based shard number a tensor's shard carries (0 for a file that is not split).
int shard_number(const GgufModel& model, const TensorInfo& tensor);

}  // namespace onnxq::cli
