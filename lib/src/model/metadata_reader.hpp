// Tolerant, typed lookups of GGUF metadata for the model views: a key that is absent gives
// nothing, a key of the wrong type gives nothing and a note, so that a model whose keys are
// missing or odd is still summarized as far as it can be. Never throws for file content.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnxq/gguf/model.hpp"

namespace onnxq::model_detail {

class MetadataReader {
 public:
  // `notes` collects one line per key that is present but unusable.
  MetadataReader(const GgufModel& model, std::vector<std::string>& notes) : model_(model), notes_(notes) {}

  const GgufValue* find(std::string_view key) const { return model_.find_metadata(key); }
  bool has(std::string_view key) const { return find(key) != nullptr; }

  // Any non-negative integer type.
  std::optional<std::uint64_t> count(std::string_view key) const;
  // Any integer type, signed or not (token ids, which some files store as -1 for "none").
  std::optional<std::int64_t> integer(std::string_view key) const;
  // f32 or f64 (integers are accepted too: some converters write a scale as an integer).
  std::optional<double> number(std::string_view key) const;
  std::optional<std::string> text(std::string_view key) const;
  std::optional<bool> flag(std::string_view key) const;
  // The length of an array, whatever its element type.
  std::optional<std::uint64_t> array_size(std::string_view key) const;

  // A key that llama.cpp reads with get_key_or_arr: one non-negative integer for every layer, or an
  // array of them. `per_layer` is set for an array. An array whose length is not `layers` is used
  // as far as it goes (the rest read as 0) and noted.
  struct LayerArray {
    std::vector<std::uint64_t> values;
    bool per_layer = false;
  };
  std::optional<LayerArray> per_layer(std::string_view key, std::uint64_t layers) const;
  // An array of bools (or integers) with one entry per layer.
  std::optional<std::vector<bool>> layer_flags(std::string_view key, std::uint64_t layers) const;

  void note(std::string text) const { notes_.push_back(std::move(text)); }

 private:
  void wrong_type(std::string_view key, const GgufValue& value, std::string_view expected) const;
  const GgufModel& model_;
  std::vector<std::string>& notes_;
};

// Layer count limit for per-layer tables: far above any real model (llama.cpp allows 512), and
// small enough that a corrupt block_count cannot make us allocate gigabytes.
inline constexpr std::uint64_t kMaxLayers = 1u << 16;

}  // namespace onnxq::model_detail
