// What `onnxq info` shows of a model, as one facts struct and as JSON: the named file's header
// facts, counts and bytes over the shards present, tensor totals per type, each shard, and the
// model and tokenizer summaries. The JSON of `info`, `list` and `tokens` is written here, once, for
// every front end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "onnxq/gguf/model.hpp"
#include "onnxq/model/model_summary.hpp"
#include "onnxq/model/tensor_totals.hpp"
#include "onnxq/model/tokenizer.hpp"

namespace onnxq {

struct ModelInfo {
  const GgufFile* named = nullptr;  // header facts are the named file's
  bool split = false;
  std::size_t shard_count = 0;  // present and missing
  std::size_t missing_shards = 0;
  std::uint64_t file_bytes = 0;  // counts and sizes cover every shard present
  std::size_t tensor_count = 0;
  std::map<std::uint32_t, TensorTotals> per_type;
  TensorTotals total;
  std::vector<ShardFacts> shards;  // in shard order, missing ones included
  ModelSummary model;
  TokenizerSummary tokenizer;

  // What the counts cover: "file", "model" (a split model, every shard present) or "shards present".
  std::string_view scope() const;
};

// The facts of `model` (its header only: no tensor data is read).
ModelInfo model_info(const GgufModel& model);

// The format's GGUF name, or "type 142" for a type onnxq does not know.
std::string ggml_type_label(std::uint32_t ggml_type);

// `onnxq info --json`: {file: `label`, scope, gguf_version, endianness, ..., types, shards, model,
// tokenizer}, the model and tokenizer summaries field for field (null where a key is absent).
std::string model_info_json(const ModelInfo& info, std::string_view label);

// `onnxq list --json`: one object per tensor (name, type, ggml_type, format_id, ne, shape, elements,
// bytes, offsets, the 0-based shard in a split model, size_inferred).
std::string tensor_list_json(const GgufModel& model, std::span<const TensorInfo* const> tensors);

// `onnxq tokens --json`: one object per token (id, text, type name or number, score, roles).
std::string tokens_json(std::span<const ChosenToken> tokens);

}  // namespace onnxq
