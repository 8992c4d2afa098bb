// What a GGUF model is, read from its metadata the way llama.cpp reads it (`<arch>.<name>` keys):
// its architecture and sizes, and how each layer attends (full context, a sliding window, a
// recurrent state), as llama.cpp derives it for its KV cache. A key that is missing leaves its
// field empty; a key that is present but unusable (wrong type, wrong length) is ignored with a
// note. Summarizing never fails on file content.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnxq/gguf/model.hpp"

namespace onnxq {

// A hyperparameter stored as one value for every layer, or as an array with one per layer.
struct LayerValues {
  std::vector<std::uint64_t> values;  // one value, or one per layer when per_layer
  bool per_layer = false;

  std::uint64_t at(std::size_t layer) const {
    if (!per_layer) return values.empty() ? 0 : values.front();
    return layer < values.size() ? values[layer] : 0;
  }
  bool uniform() const;
  std::uint64_t min() const;
  std::uint64_t max() const;
};

// How a sliding-window layer limits attention (llama.cpp's llama_swa_type).
enum class SlidingWindowKind { None, Standard, Chunked, Symmetric };
std::string_view sliding_window_kind_name(SlidingWindowKind kind);  // "none", "standard", ...

// What a recurrent layer keeps per sequence instead of a KV cache.
enum class RecurrentStateKind { None, Ssm, Wkv, ShortConv };          // Mamba, RWKV, LFM2's short convolution
std::string_view recurrent_state_kind_name(RecurrentStateKind kind);  // "none", "ssm", "wkv", "shortconv"

// One layer as llama.cpp's memory sees it.
struct LayerAttention {
  std::uint64_t kv_heads = 0;   // n_head_kv(il); 0: the layer does not attend
  bool sliding_window = false;  // its KV cache holds a window of tokens, not the whole context
  bool recurrent = false;       // it keeps a recurrent state (and, unless it also attends, no KV cache)
  bool shares_kv = false;       // it reuses an earlier layer's KV cache (gemma3n's shared_kv_layers)
  bool kv_cache = false;        // llama.cpp allocates this layer a K cache (and, unless MLA, a V cache)
};

struct ModelSummary {
  std::string architecture;                // general.architecture; empty when absent
  std::optional<std::string> name;         // general.name
  std::optional<std::string> type;         // general.type ("model", "adapter", ...)
  std::optional<std::string> size_label;   // general.size_label ("8B", "8x7B")
  std::optional<std::uint32_t> file_type;  // general.file_type, or llama.cpp's guess (file_type_guessed)
  bool file_type_guessed = false;
  std::optional<std::uint64_t> quantization_version;

  // Over all tensors of all shards present.
  std::uint64_t parameters = 0;
  std::uint64_t tensor_bytes = 0;
  double bits_per_weight = 0;

  std::optional<std::uint64_t> context_length;
  std::optional<std::uint64_t> embedding_length;
  std::optional<std::uint64_t> block_count;
  std::optional<std::uint64_t> vocab_size;  // <arch>.vocab_size, else the tokenizer's token count
  std::optional<LayerValues> head_count;
  std::optional<LayerValues> head_count_kv;
  std::optional<LayerValues> feed_forward_length;
  std::optional<std::uint64_t> key_length;  // as stored; see head_dim_k for what llama.cpp uses
  std::optional<std::uint64_t> value_length;
  std::optional<std::uint64_t> expert_count;
  std::optional<std::uint64_t> expert_used_count;
  std::optional<std::uint64_t> expert_shared_count;
  std::optional<std::uint64_t> expert_feed_forward_length;

  struct Rope {
    std::optional<std::uint64_t> dimension_count;
    std::optional<double> freq_base;
    std::optional<std::string> scaling_type;
    std::optional<double> scaling_factor;
    std::optional<std::uint64_t> original_context_length;
  } rope;

  SlidingWindowKind sliding_window_kind = SlidingWindowKind::None;
  std::optional<std::uint64_t> sliding_window;  // tokens, when some layers use a sliding window

  // Derived as llama.cpp derives its hyperparameters (llama_hparams).
  std::uint64_t head_dim_k = 0;  // n_embd_head_k: key_length, else embedding_length / head_count of layer 0
  std::uint64_t head_dim_v = 0;  // n_embd_head_v
  bool mla = false;          // multi-head latent attention (key_length_mla): the K cache holds the latent, no V cache
  bool has_kv_cache = true;  // false for an encoder-only architecture (BERT ...), which llama.cpp runs without one
  std::vector<LayerAttention> layers;  // one per layer (block_count, else the blk.N tensors)
  RecurrentStateKind recurrent_state = RecurrentStateKind::None;
  std::uint64_t recurrent_r = 0;  // n_embd_r: f32 values of a recurrent layer's rolling (conv / token-shift) state
  std::uint64_t recurrent_s = 0;  // n_embd_s: f32 values of its SSM / WKV state

  std::vector<std::string> notes;  // keys ignored and assumptions made, one line each

  std::uint64_t sliding_window_layers() const;
  std::uint64_t recurrent_layers() const;
};

ModelSummary summarize_model(const GgufModel& model);

// "blk.12.attn_q.weight" -> 12 (also "enc.blk.N." and "dec.blk.N."); nullopt for a tensor outside the layers.
std::optional<std::uint64_t> tensor_layer(std::string_view tensor_name);

}  // namespace onnxq
