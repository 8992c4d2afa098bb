// Counts of a model's tensors: tensors, elements and bytes per ggml type and per layer group, and
// each shard file's header facts, for the summaries `onnxq info` and `onnxq list --markdown` show.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "onnxq/gguf/model.hpp"

namespace onnxq {

struct TensorTotals {
  std::uint64_t tensors = 0;
  std::uint64_t elements = 0;
  std::uint64_t bytes = 0;

  void add(const TensorInfo& t);
  // 8 * bytes / elements; 0 without elements.
  double bits_per_weight() const;
};

// Every tensor of the model (the shards present), by ggml type.
std::map<std::uint32_t, TensorTotals> totals_by_type(const GgufModel& model);

// The group gguf_dump.py puts a tensor in: its layer's prefix ("blk.N", "enc.blk.N", "dec.blk.N",
// as tensor_layer reads it) or "base".
std::string tensor_group(std::string_view tensor_name);

struct TensorGroup {
  std::string name;
  std::vector<const TensorInfo*> tensors;
  TensorTotals totals;
};
// The tensors by tensor_group, the groups in order of first appearance.
std::vector<TensorGroup> group_tensors_by_layer(std::span<const TensorInfo* const> tensors);

// One shard file of a model, present or missing, in shard order.
struct ShardFacts {
  int number = 0;  // 1-based; 0 for a file that is not split
  std::string path;
  bool present = false;
  std::uint64_t data_offset = 0, keys = 0, tensors = 0, size = 0;  // present shards
};
std::vector<ShardFacts> shard_facts(const GgufModel& model);

}  // namespace onnxq
