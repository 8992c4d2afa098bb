// gguf-split's conventions, shared by the reader, `onnxq check` and the writers: the shard file
// name `<base>-NNNNN-of-NNNNN.gguf`, the split.* keys, and the rules that keep a split model's
// keys consistent with its file names and with each other.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "onnxq/gguf/wire.hpp"

namespace onnxq {

// The keys, with the types gguf-split writes.
inline constexpr std::string_view kGgufSplitNoKey = "split.no";  // 0-based shard index
inline constexpr GgufType kGgufSplitNoType = GgufType::UInt16;
inline constexpr std::string_view kGgufSplitCountKey = "split.count";
inline constexpr GgufType kGgufSplitCountType = GgufType::UInt16;
inline constexpr std::string_view kGgufSplitTensorsCountKey = "split.tensors.count";  // in the whole model
inline constexpr GgufType kGgufSplitTensorsCountType = GgufType::Int32;

// The most shards a split model has: what split.count's type holds (the names' five digits would
// number more).
inline constexpr std::uint64_t kGgufSplitMaxShards =
    (std::uint64_t{1} << (8 * gguf_scalar_size(kGgufSplitCountType))) - 1;
// The most tensors it has: what split.tensors.count's type holds (a signed type: half its range).
inline constexpr std::uint64_t kGgufSplitMaxTensors =
    (std::uint64_t{1} << (8 * gguf_scalar_size(kGgufSplitTensorsCountType) - 1)) - 1;

// A shard's file name taken apart.
struct GgufSplitName {
  std::string base;  // the path before `-NNNNN-of-NNNNN.gguf`
  int number;        // 1-based, as the name states it (may lie outside 1..count)
  int count;
};
// nullopt unless `path` ends in `-NNNNN-of-NNNNN.gguf` (exactly five digits each).
std::optional<GgufSplitName> parse_gguf_split_name(std::string_view path);
// `-NNNNN-of-NNNNN`: the numbering part of a shard's name, for any container (`.gguf`, `.safetensors`).
std::string split_shard_suffix(std::uint64_t number, std::uint64_t count);
// `<base>-NNNNN-of-NNNNN.gguf`.
std::string gguf_split_path(std::string_view base, std::uint64_t number, std::uint64_t count);

// The split.* keys of one shard, as its reader took them (nullopt: absent).
struct GgufSplitKeys {
  std::optional<std::uint64_t> no, count, tensors_count;
  bool any() const { return no || count || tensors_count; }
};

// One departure from the rules. GgufModel::open refuses a model at the first problem that has a
// `reason`; `onnxq check` reports each one.
struct GgufSplitProblem {
  std::string_view code;  // check's finding code, e.g. "split-count"
  std::size_t shard = 0;  // which shard it concerns, as an index into the shards given
  std::string_view key;   // the split.* key it concerns; empty when none
  bool warning = false;   // a disagreement readers get past
  std::string reason;     // GgufModel::open's message, after "<shard path>: "; empty when it accepts it
  std::string finding;    // check's message (the key is named apart from it)
};

// The shard's file name says it is shard `number` of `count`.
std::vector<GgufSplitProblem> gguf_split_name_problems(int number, int count);
// Its keys against its name: shard `number` (1-based) of `count`.
std::vector<GgufSplitProblem> gguf_split_shard_problems(const GgufSplitKeys& keys, int number, int count);
// A file whose name is not a shard's, though its keys say it is one of several.
std::vector<GgufSplitProblem> gguf_unsplit_name_problems(const GgufSplitKeys& keys);

// Every shard of a model, in order: their keys against each other and against the tensors they hold.
struct GgufSplitShard {
  GgufSplitKeys keys;
  std::uint64_t tensor_count = 0;
};
std::vector<GgufSplitProblem> gguf_split_set_problems(std::span<const GgufSplitShard> shards);

}  // namespace onnxq
