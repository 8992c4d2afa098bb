// llama-quantize's choice of a type per tensor, as llama.cpp's src/llama-quant.cpp makes it at
// commit 007dbbf3fd17: which tensors it quantizes at all (tensor_allows_quantization), the broad
// category a name falls in, the preset rules (llama_tensor_get_type_impl) with their counters, the
// fallback for rows that are not a multiple of the block, and which tensors need an importance
// matrix. Facts and decisions carry over; the code is onnxq's own.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "llama_presets.hpp"
#include "onnxq/gguf/metadata.hpp"

namespace onnxq::convert_detail {

// What the rules read from a model's metadata (llama_hparams as the loader fills it).
struct ModelFacts {
  std::string architecture;   // general.architecture; empty when absent
  bool known = false;         // llama.cpp knows the architecture, so its rules apply
  std::uint32_t n_layer = 0;  // <arch>.block_count (0 when absent)
  std::uint32_t n_gqa = 0;    // layer 0's head_count / head_count_kv (0 when head_count_kv is 0)
  std::uint32_t n_expert = 0;
  bool is_70b = false;  // the loader's LLM_TYPE_70B
  bool falcon = false;
  bool bailingmoe3 = false;
};

ModelFacts read_model_facts(const GgufMetadata& metadata);

// ggml_n_dims: the dimensions up to the last one above 1 (at least 1; a trailing 0 does not count).
int tensor_dims(std::span<const std::uint64_t> ne);

// Why llama-quantize leaves this tensor as it is ("1-D", "a norm", ...), or nullopt when it
// quantizes it.
std::optional<std::string> llama_exclusion(std::string_view name, std::span<const std::uint64_t> ne);

enum class Category : std::uint8_t {
  TokenEmbd,
  AttnQ,
  AttnV,
  AttnK,
  AttnQkv,
  AttnKvB,
  AttnOutput,
  FfnUp,
  FfnGate,
  FfnDown,
  Output,
  Other
};

Category tensor_category(std::string_view name);
bool category_is_attn_v(Category c);

// The counters llama_tensor_get_type_impl keeps across tensors (quantize_state_impl).
struct RuleState {
  int n_attention_wv = 0;  // every attn_v, attn_qkv and attn_kv_b tensor of the model
  int n_ffn = 0;           // n_ffn_down = n_ffn_gate = n_ffn_up = block_count
  int i_attention_wv = 0;
  int i_ffn_down = 0;
  int i_ffn_gate = 0;
  int i_ffn_up = 0;
  bool has_imatrix = false;
  bool has_tied_embeddings = true;  // until a tensor named output.weight is seen
};

struct RuleChoice {
  std::uint32_t type;
  std::string_view rule;  // the rule that chose it ("attn_v", "ffn_down", ...), empty for the base type
};

// llama_tensor_get_type_impl for a tensor llama-quantize quantizes and no override names. Throws
// Error(InvalidInput) where llama.cpp does (an expert model's ffn tensor without a valid blk.N.).
RuleChoice llama_rule_type(RuleState& state, const ModelFacts& model, Ftype ftype, std::uint32_t default_type,
                           std::string_view name, std::span<const std::uint64_t> ne, Category category);

// tensor_type_fallback: `type` when ne[0] is a multiple of its block; else its fallback, or F16
// when that does not fit either; nullopt where llama.cpp defines no fallback (and stops).
std::optional<std::uint32_t> llama_fallback(std::uint32_t type, std::uint64_t row_length);

// tensor_requires_imatrix: llama-quantize refuses these without an importance matrix.
bool llama_requires_imatrix(std::string_view name, std::uint32_t type, Ftype ftype);

}  // namespace onnxq::convert_detail
