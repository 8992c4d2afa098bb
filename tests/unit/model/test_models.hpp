// Small GGUF models for the model-view tests, written with GgufBuilder: a llama-like model with
// GQA, variants of it, and helpers for array metadata. Sizes are tiny so that every figure can be
// worked out by hand in the tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gguf_builder.hpp"
#include "onnxq/gguf/model.hpp"

namespace onnxq::testing {

// GGUF metadata value types and ggml tensor types used below.
inline constexpr std::uint32_t kU32 = 4, kI32 = 5, kF32 = 6, kBool = 7, kStr = 8, kArr = 9;
inline constexpr std::uint32_t kTypeF32 = 0, kTypeF16 = 1, kTypeQ4_0 = 2, kTypeQ8_0 = 8;

inline void kv_u32_array(GgufBuilder& b, const std::string& key, const std::vector<std::uint32_t>& values) {
  b.kv(key, kArr, [&](GgufBytes& w) {
    w.u32(kU32);
    w.u64(values.size());
    for (std::uint32_t v : values) w.u32(v);
  });
}

inline void kv_bool_array(GgufBuilder& b, const std::string& key, const std::vector<bool>& values) {
  b.kv(key, kArr, [&](GgufBytes& w) {
    w.u32(kBool);
    w.u64(values.size());
    for (bool v : values) w.u8(v ? 1 : 0);
  });
}

inline void kv_str_array(GgufBuilder& b, const std::string& key, const std::vector<std::string>& values) {
  b.kv(key, kArr, [&](GgufBytes& w) {
    w.u32(kStr);
    w.u64(values.size());
    for (const std::string& v : values) w.str(v);
  });
}

inline void kv_i32_array(GgufBuilder& b, const std::string& key, const std::vector<std::int32_t>& values) {
  b.kv(key, kArr, [&](GgufBytes& w) {
    w.u32(kI32);
    w.u64(values.size());
    for (std::int32_t v : values) w.u32(static_cast<std::uint32_t>(v));
  });
}

inline void kv_f32(GgufBuilder& b, const std::string& key, std::uint32_t bits) {
  b.kv(key, kF32, [&](GgufBytes& w) { w.u32(bits); });
}

inline void kv_bool(GgufBuilder& b, const std::string& key, bool v) {
  b.kv(key, kBool, [&](GgufBytes& w) { w.u8(v ? 1 : 0); });
}

// The bytes of a built file and the GgufModel parsed from them (which views those bytes).
struct BuiltModel {
  std::vector<std::uint8_t> bytes;
  GgufModel file;
  explicit BuiltModel(const GgufBuilder& b) : bytes(b.build()), file(parse_gguf(bytes)) {}
  BuiltModel(const BuiltModel&) = delete;
};

// The tensors of one llama-style layer with n_embd 64, n_ff 128 and K/V width `kv_width`, all Q4_0
// except the F32 norms. Bytes: q 2304, k and v 18 * 2 * kv_width each, output 2304, three FFN
// matrices 4608 each, two norms 256 each.
inline void llama_layer(GgufBuilder& b, int layer, std::uint64_t kv_width = 16) {
  const std::string p = "blk." + std::to_string(layer) + ".";
  b.tensor(p + "attn_norm.weight", {64}, kTypeF32);
  b.tensor(p + "attn_q.weight", {64, 64}, kTypeQ4_0);
  b.tensor(p + "attn_k.weight", {64, kv_width}, kTypeQ4_0);
  b.tensor(p + "attn_v.weight", {64, kv_width}, kTypeQ4_0);
  b.tensor(p + "attn_output.weight", {64, 64}, kTypeQ4_0);
  b.tensor(p + "ffn_norm.weight", {64}, kTypeF32);
  b.tensor(p + "ffn_gate.weight", {64, 128}, kTypeQ4_0);
  b.tensor(p + "ffn_up.weight", {64, 128}, kTypeQ4_0);
  b.tensor(p + "ffn_down.weight", {128, 64}, kTypeQ4_0);
}
inline constexpr std::uint64_t kLlamaLayerBytes = 256 + 2304 + 576 + 576 + 2304 + 256 + 3 * 4608;  // kv_width 16

struct LlamaOptions {
  bool big_endian = false;
  std::string architecture = "llama";
  std::vector<std::uint32_t> head_count_kv = {2};  // one value: a scalar key; more: a per-layer array
  std::uint32_t key_length = 0;                    // 0: no key_length / value_length keys
  std::uint32_t value_length = 0;
  bool tied_embeddings = false;  // no output.weight
};

// A llama-like model: 4 layers, n_embd 64, 8 heads of 8, 2 KV heads (GQA 4), n_ff 128, a
// 32-token vocabulary; token_embd F16 [64, 32] (4096 bytes), output_norm F32 (256), output Q8_0
// [64, 32] (2176).
inline GgufBuilder llama_like(const LlamaOptions& o = {}) {
  GgufBuilder b;
  b.big_endian = o.big_endian;
  const std::string a = o.architecture;
  b.kv_str("general.architecture", a);
  b.kv_str("general.name", "tiny llama");
  b.kv_u32("general.file_type", 15);
  b.kv_u32(a + ".context_length", 2048);
  b.kv_u32(a + ".embedding_length", 64);
  b.kv_u32(a + ".block_count", 4);
  b.kv_u32(a + ".feed_forward_length", 128);
  b.kv_u32(a + ".attention.head_count", 8);
  if (o.head_count_kv.size() == 1)
    b.kv_u32(a + ".attention.head_count_kv", o.head_count_kv[0]);
  else
    kv_u32_array(b, a + ".attention.head_count_kv", o.head_count_kv);
  if (o.key_length) b.kv_u32(a + ".attention.key_length", o.key_length);
  if (o.value_length) b.kv_u32(a + ".attention.value_length", o.value_length);
  kv_f32(b, a + ".rope.freq_base", 0x461C4000);  // 10000.0f
  b.kv_str("tokenizer.ggml.model", "llama");
  std::vector<std::string> tokens;
  for (int i = 0; i < 32; ++i) tokens.push_back(std::string("t").append(std::to_string(i)));
  kv_str_array(b, "tokenizer.ggml.tokens", tokens);
  b.tensor("token_embd.weight", {64, 32}, kTypeF16);
  for (int i = 0; i < 4; ++i) llama_layer(b, i);
  b.tensor("output_norm.weight", {64}, kTypeF32);
  if (!o.tied_embeddings) b.tensor("output.weight", {64, 32}, kTypeQ8_0);
  return b;
}
// Mamba: 2 recurrent layers, n_embd 64, d_conv 4, d_inner 128, d_state 16; token_embd F16 [64, 32]
// and one Q4_0 [64, 256] matrix per layer (9216 bytes).
inline GgufBuilder mamba_like() {
  GgufBuilder b;
  b.kv_str("general.architecture", "mamba");
  b.kv_u32("mamba.embedding_length", 64);
  b.kv_u32("mamba.block_count", 2);
  b.kv_u32("mamba.ssm.conv_kernel", 4);
  b.kv_u32("mamba.ssm.inner_size", 128);
  b.kv_u32("mamba.ssm.state_size", 16);
  b.kv_u32("mamba.ssm.time_step_rank", 4);
  b.tensor("token_embd.weight", {64, 32}, kTypeF16);
  b.tensor("blk.0.ssm_in.weight", {64, 256}, kTypeQ4_0);
  b.tensor("blk.1.ssm_in.weight", {64, 256}, kTypeQ4_0);
  return b;
}

// Jamba: the llama-like model with KV heads {0, 2, 0, 2} (layers 0 and 2 recurrent) and Mamba's SSM keys.
inline GgufBuilder jamba_like() {
  LlamaOptions o;
  o.architecture = "jamba";
  o.head_count_kv = {0, 2, 0, 2};
  GgufBuilder b = llama_like(o);
  b.kv_u32("jamba.ssm.conv_kernel", 4);
  b.kv_u32("jamba.ssm.inner_size", 128);
  b.kv_u32("jamba.ssm.state_size", 16);
  return b;
}

inline constexpr std::uint64_t kLlamaInputBytes = 4096;
inline constexpr std::uint64_t kLlamaOutputBytes = 256 + 2176;

}  // namespace onnxq::testing
