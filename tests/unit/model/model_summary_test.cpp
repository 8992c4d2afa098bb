// summarize_model on files the tests write: the hyperparameters a llama-like model states, the
// per-layer layout llama.cpp derives (GQA heads, sliding-window layers, recurrent layers), the
// file type label, and models whose keys are missing or odd (summarized, never an error).
#include <gtest/gtest.h>

#include <algorithm>

#include "onnxq/model/file_type.hpp"
#include "onnxq/model/model_summary.hpp"
#include "test_models.hpp"

namespace onnxq {
namespace {

using namespace testing;

bool has_note(const std::vector<std::string>& notes, std::string_view part) {
  return std::any_of(notes.begin(), notes.end(), [&](const std::string& n) { return n.find(part) != n.npos; });
}

TEST(ModelSummary, LlamaLikeModelStatesItsHyperparameters) {
  const BuiltModel m(llama_like());
  const ModelSummary s = summarize_model(m.file);
  EXPECT_EQ(s.architecture, "llama");
  EXPECT_EQ(s.name, "tiny llama");
  ASSERT_TRUE(s.file_type);
  EXPECT_EQ(*s.file_type, 15u);
  EXPECT_FALSE(s.file_type_guessed);
  EXPECT_EQ(llama_file_type_name(*s.file_type), "MOSTLY_Q4_K_M");
  EXPECT_EQ(s.context_length, 2048u);
  EXPECT_EQ(s.embedding_length, 64u);
  EXPECT_EQ(s.block_count, 4u);
  EXPECT_EQ(s.vocab_size, 32u);  // no llama.vocab_size: the token count
  ASSERT_TRUE(s.head_count && s.head_count_kv && s.feed_forward_length);
  EXPECT_FALSE(s.head_count_kv->per_layer);
  EXPECT_EQ(s.head_count->at(3), 8u);
  EXPECT_EQ(s.head_count_kv->at(3), 2u);
  EXPECT_EQ(s.feed_forward_length->at(0), 128u);
  EXPECT_EQ(s.rope.freq_base, 10000.0);
  EXPECT_FALSE(s.expert_count);
  // 64 / 8 heads, no key_length key.
  EXPECT_EQ(s.head_dim_k, 8u);
  EXPECT_EQ(s.head_dim_v, 8u);
  ASSERT_EQ(s.layers.size(), 4u);
  for (const LayerAttention& l : s.layers) {
    EXPECT_EQ(l.kv_heads, 2u);
    EXPECT_TRUE(l.kv_cache);
    EXPECT_FALSE(l.sliding_window || l.recurrent || l.shares_kv);
  }
  // Parameters: embeddings 2048, per layer 64+4096+1024+1024+4096+64+3*8192, norm 64, output 2048.
  EXPECT_EQ(s.parameters, 2048 + 4 * (64 + 4096 + 1024 + 1024 + 4096 + 64 + 3 * 8192) + 64 + 2048u);
  EXPECT_EQ(s.tensor_bytes, kLlamaInputBytes + 4 * kLlamaLayerBytes + kLlamaOutputBytes);
  EXPECT_DOUBLE_EQ(s.bits_per_weight, 8.0 * s.tensor_bytes / s.parameters);
  EXPECT_TRUE(s.notes.empty()) << s.notes.front();
}

TEST(ModelSummary, PerLayerKvHeadsAndExplicitHeadSizes) {
  LlamaOptions o;
  o.head_count_kv = {2, 4, 1, 0};
  o.key_length = 32;
  o.value_length = 16;
  const BuiltModel m(llama_like(o));
  const ModelSummary s = summarize_model(m.file);
  ASSERT_TRUE(s.head_count_kv);
  EXPECT_TRUE(s.head_count_kv->per_layer);
  EXPECT_FALSE(s.head_count_kv->uniform());
  EXPECT_EQ(s.head_count_kv->min(), 0u);
  EXPECT_EQ(s.head_count_kv->max(), 4u);
  EXPECT_EQ(s.head_dim_k, 32u);  // key_length wins over 64 / 8
  EXPECT_EQ(s.head_dim_v, 16u);
  EXPECT_EQ(s.layers[1].kv_heads, 4u);
  EXPECT_TRUE(s.layers[2].kv_cache);
  EXPECT_EQ(s.layers[3].kv_heads, 0u);
  EXPECT_FALSE(s.layers[3].kv_cache);  // a layer without KV heads gets no cache
}

TEST(ModelSummary, SlidingWindowLayersFollowTheArchitecturePattern) {
  // gemma2: every second layer (0, 2, 4 ...) uses the window; gemma3: five of every six.
  LlamaOptions o;
  o.architecture = "gemma2";
  GgufBuilder b = llama_like(o);
  b.kv_u32("gemma2.attention.sliding_window", 1024);
  const BuiltModel gemma2(b);
  const ModelSummary s = summarize_model(gemma2.file);
  EXPECT_EQ(s.sliding_window_kind, SlidingWindowKind::Standard);
  EXPECT_EQ(s.sliding_window, 1024u);
  EXPECT_EQ(s.sliding_window_layers(), 2u);
  EXPECT_TRUE(s.layers[0].sliding_window);
  EXPECT_FALSE(s.layers[1].sliding_window);
  EXPECT_TRUE(s.layers[2].sliding_window);
  EXPECT_FALSE(s.layers[3].sliding_window);

  // gemma2 without the key: llama.cpp's default window of 4096.
  const BuiltModel gemma2_default(llama_like(o));
  EXPECT_EQ(summarize_model(gemma2_default.file).sliding_window, 4096u);

  // gemma3 needs the key; without it the layers are counted at full context, with a note.
  o.architecture = "gemma3";
  const BuiltModel gemma3_missing(llama_like(o));
  const ModelSummary g3 = summarize_model(gemma3_missing.file);
  EXPECT_FALSE(g3.sliding_window);
  EXPECT_EQ(g3.sliding_window_layers(), 0u);
  EXPECT_TRUE(has_note(g3.notes, "gemma3.attention.sliding_window"));

  // gemma3 with a pattern key of 2 overriding its period of 6.
  GgufBuilder b3 = llama_like(o);
  b3.kv_u32("gemma3.attention.sliding_window", 512);
  b3.kv_u32("gemma3.attention.sliding_window_pattern", 2);
  const BuiltModel gemma3(b3);
  EXPECT_EQ(summarize_model(gemma3.file).sliding_window_layers(), 2u);

  // An architecture onnxq does not know, which names its layers with a bool array.
  o.architecture = "newarch";
  GgufBuilder bn = llama_like(o);
  bn.kv_u32("newarch.attention.sliding_window", 256);
  kv_bool_array(bn, "newarch.attention.sliding_window_pattern", {false, true, true, false});
  const BuiltModel newarch(bn);
  const ModelSummary n = summarize_model(newarch.file);
  EXPECT_EQ(n.sliding_window, 256u);
  EXPECT_FALSE(n.layers[0].sliding_window);
  EXPECT_TRUE(n.layers[1].sliding_window);
  EXPECT_TRUE(n.layers[2].sliding_window);
  EXPECT_FALSE(n.layers[3].sliding_window);

  // ... and one that states a window but not which layers use it: a note, full context.
  GgufBuilder bu = llama_like(o);
  bu.kv_u32("newarch.attention.sliding_window", 256);
  const BuiltModel unknown(bu);
  const ModelSummary u = summarize_model(unknown.file);
  EXPECT_FALSE(u.sliding_window);
  EXPECT_TRUE(has_note(u.notes, "which layers use it is not known"));
}

TEST(ModelSummary, RecurrentAndHybridLayers) {
  // Mamba: every layer keeps a conv state of (d_conv - 1) * d_inner and an SSM state of d_state * d_inner.
  const BuiltModel mamba(mamba_like());
  const ModelSummary s = summarize_model(mamba.file);
  EXPECT_FALSE(s.has_kv_cache);
  EXPECT_EQ(s.recurrent_layers(), 2u);
  EXPECT_EQ(s.recurrent_state, RecurrentStateKind::Ssm);
  EXPECT_EQ(s.recurrent_r, 3u * 128);
  EXPECT_EQ(s.recurrent_s, 16u * 128);
  EXPECT_FALSE(s.layers[0].kv_cache);

  // RWKV: token_shift_count (default 2) * n_embd and n_embd * head_size.
  GgufBuilder r;
  r.kv_str("general.architecture", "rwkv6");
  r.kv_u32("rwkv6.embedding_length", 64);
  r.kv_u32("rwkv6.block_count", 1);
  r.kv_u32("rwkv6.wkv.head_size", 16);
  const BuiltModel rwkv(r);
  const ModelSummary w = summarize_model(rwkv.file);
  EXPECT_EQ(w.recurrent_state, RecurrentStateKind::Wkv);
  EXPECT_EQ(w.recurrent_r, 128u);
  EXPECT_EQ(w.recurrent_s, 1024u);

  // Jamba: the layers without KV heads are the recurrent ones.
  const BuiltModel jamba(jamba_like());
  const ModelSummary h = summarize_model(jamba.file);
  EXPECT_TRUE(h.has_kv_cache);
  EXPECT_TRUE(h.layers[0].recurrent && !h.layers[0].kv_cache);
  EXPECT_TRUE(!h.layers[1].recurrent && h.layers[1].kv_cache);
  EXPECT_EQ(h.recurrent_layers(), 2u);

  // Qwen3-Next: every 4th layer attends (full_attention_interval), the rest are recurrent.
  LlamaOptions o;
  o.architecture = "qwen3next";
  const BuiltModel next(llama_like(o));
  const ModelSummary q = summarize_model(next.file);
  EXPECT_TRUE(q.layers[0].recurrent && q.layers[1].recurrent && q.layers[2].recurrent);
  EXPECT_TRUE(!q.layers[3].recurrent && q.layers[3].kv_cache);
  EXPECT_TRUE(has_note(q.notes, "recurrent layers without"));  // no ssm keys in this file
}

TEST(ModelSummary, MissingAndOddKeysGiveWhatIsThere) {
  // No architecture at all, tensors only.
  GgufBuilder b;
  b.tensor("blk.0.w", {32}, kTypeF32);
  b.tensor("blk.2.w", {32}, kTypeF32);
  const BuiltModel bare(b);
  const ModelSummary s = summarize_model(bare.file);
  EXPECT_EQ(s.architecture, "");
  EXPECT_EQ(s.layers.size(), 3u);  // blk.0 .. blk.2
  EXPECT_EQ(s.parameters, 64u);
  EXPECT_TRUE(s.file_type_guessed);
  EXPECT_EQ(*s.file_type, kLlamaFileTypeGuessed | 0u);  // all F32
  EXPECT_TRUE(has_note(s.notes, "no general.architecture"));

  // An architecture with a wrongly typed block_count, a head_count_kv array of the wrong length
  // and no embedding length.
  GgufBuilder o;
  o.kv_str("general.architecture", "mystery");
  o.kv_str("mystery.block_count", "four");
  o.kv_u32("mystery.attention.head_count", 4);
  kv_u32_array(o, "mystery.attention.head_count_kv", {1, 1, 1});
  o.tensor("blk.0.w", {32}, kTypeF32);
  o.tensor("blk.1.w", {32}, kTypeF32);
  const BuiltModel odd(o);
  const ModelSummary m = summarize_model(odd.file);
  EXPECT_FALSE(m.block_count);
  EXPECT_EQ(m.layers.size(), 2u);
  EXPECT_TRUE(has_note(m.notes, "mystery.block_count is str, expected a non-negative integer"));
  EXPECT_TRUE(has_note(m.notes, "no mystery.block_count: 2 layers counted from the blk.N tensors"));
  EXPECT_TRUE(has_note(m.notes, "mystery.attention.head_count_kv has 3 entries for 2 layers"));
  EXPECT_TRUE(has_note(m.notes, "no mystery.embedding_length"));
  EXPECT_EQ(m.head_dim_k, 0u);
  EXPECT_FALSE(m.layers[0].kv_cache);
  EXPECT_FALSE(m.context_length);

  // Nothing at all.
  const BuiltModel empty{GgufBuilder{}};
  const ModelSummary e = summarize_model(empty.file);
  EXPECT_TRUE(e.layers.empty());
  EXPECT_FALSE(e.file_type);
  EXPECT_EQ(e.bits_per_weight, 0.0);
}

TEST(ModelSummary, BigEndianFileReadsTheSame) {
  LlamaOptions o;
  o.head_count_kv = {2, 4, 1, 0};
  const BuiltModel le(llama_like(o));
  o.big_endian = true;
  const BuiltModel be(llama_like(o));
  const ModelSummary a = summarize_model(le.file), b = summarize_model(be.file);
  EXPECT_EQ(a.head_count_kv->values, b.head_count_kv->values);
  EXPECT_EQ(a.rope.freq_base, b.rope.freq_base);
  EXPECT_EQ(a.context_length, b.context_length);
  EXPECT_EQ(a.tensor_bytes, b.tensor_bytes);
  EXPECT_EQ(a.vocab_size, b.vocab_size);
}

TEST(FileType, NamesAndGuesses) {
  EXPECT_EQ(llama_file_type_name(0), "ALL_F32");
  EXPECT_EQ(llama_file_type_name(7), "MOSTLY_Q8_0");
  EXPECT_EQ(llama_file_type_name(32), "MOSTLY_BF16");
  EXPECT_EQ(llama_file_type_name(15 | kLlamaFileTypeGuessed), "MOSTLY_Q4_K_M");
  EXPECT_EQ(llama_file_type_name(99), "");

  // Most tensors Q4_0 -> MOSTLY_Q4_0; a tie goes to the type that reached the count first, by name.
  GgufBuilder b;
  b.tensor("a", {32}, kTypeQ4_0);
  b.tensor("b", {32}, kTypeF32);
  b.tensor("c", {32}, kTypeQ4_0);
  const BuiltModel q4(b);
  EXPECT_EQ(guess_llama_file_type(q4.file.tensors()), 2u | kLlamaFileTypeGuessed);
  GgufBuilder t;
  t.tensor("z", {32}, kTypeQ8_0);  // file order is not name order
  t.tensor("a", {32}, kTypeF16);
  const BuiltModel tie(t);
  EXPECT_EQ(guess_llama_file_type(tie.file.tensors()), 1u | kLlamaFileTypeGuessed);  // "a" (F16) first
}

TEST(ModelSummary, TensorLayers) {
  EXPECT_EQ(tensor_layer("blk.12.attn_q.weight"), 12u);
  EXPECT_EQ(tensor_layer("enc.blk.3.ffn_up.weight"), 3u);
  EXPECT_FALSE(tensor_layer("token_embd.weight"));
  EXPECT_FALSE(tensor_layer("blk.x.y"));
  EXPECT_FALSE(tensor_layer("blk.7"));
}

}  // namespace
}  // namespace onnxq
