// estimate_memory on files the tests write, every figure worked out by hand here: the K and V caches
// as llama.cpp allocates them (GQA, per-layer head counts, sliding-window layers, recurrent layers,
// quantized cache types, the context rounded up to 256 cells), the weights split by offloaded
// layers, and the approximate compute buffer.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "onnxq/core/error.hpp"
#include "onnxq/model/memory_estimate.hpp"
#include "test_models.hpp"

namespace onnxq {
namespace {

using namespace testing;

EstimateOptions with_context(std::uint64_t context) {
  EstimateOptions o;
  o.context = context;
  return o;
}

TEST(MemoryEstimate, LlamaLikeKvCacheEqualsGgufViewsFormula) {
  const BuiltModel m(llama_like());
  const MemoryEstimate e = estimate_memory(m.file, with_context(4096));
  // n_embd_k_gqa = (64 / 8 heads) * 2 KV heads = 16; 4096 cells of 16 f16 values in 4 layers.
  // gguf-view: sum over layers of n_embd_head_k * n_head_kv * n_ctx elements, 2 bytes each: the same.
  EXPECT_EQ(e.cells, 4096u);
  EXPECT_EQ(e.k_cache.total(), 4u * 4096 * 16 * 2);
  EXPECT_EQ(e.v_cache.total(), 4u * 4096 * 16 * 2);
  EXPECT_EQ(e.k_cache.vram, e.k_cache.total());  // all layers offloaded by default
  EXPECT_EQ(e.recurrent_state.total(), 0u);
  EXPECT_EQ(e.layers[0].cells, 4096u);
  EXPECT_EQ(e.layers[2].k_cache, 4096u * 16 * 2);
  // Weights: all of them, where the loader places them: the embeddings stay in RAM.
  EXPECT_EQ(e.input_weights.ram, kLlamaInputBytes);
  EXPECT_EQ(e.input_weights.vram, 0u);
  EXPECT_EQ(e.layer_weights.vram, 4 * kLlamaLayerBytes);
  EXPECT_EQ(e.output_weights.vram, kLlamaOutputBytes);
  EXPECT_EQ(e.weights().total(), kLlamaInputBytes + 4 * kLlamaLayerBytes + kLlamaOutputBytes);
  EXPECT_EQ(e.layers[1].weights, kLlamaLayerBytes);
  EXPECT_EQ(e.offloaded_layers, 4u);
  EXPECT_TRUE(e.output_offloaded);
  // Compute, T = 512: logits 4 * 512 * (32 + 64) = 196608, layers 4 * 512 * (2 * 64 + 3 * 128) = 1048576;
  // the GPU runs both, the CPU neither.
  EXPECT_EQ(e.compute.vram, 1048576u);
  EXPECT_EQ(e.compute.ram, 0u);
  EXPECT_EQ(e.total().total(), e.weights().total() + e.k_cache.total() + e.v_cache.total() + e.compute.total());
}

TEST(MemoryEstimate, ContextIsRoundedUpTo256Cells) {
  const BuiltModel m(llama_like());
  const MemoryEstimate e = estimate_memory(m.file, with_context(1000));
  EXPECT_EQ(e.context, 1000u);
  EXPECT_EQ(e.cells, 1024u);
  EXPECT_EQ(e.k_cache.total(), 4u * 1024 * 16 * 2);
  EXPECT_EQ(estimate_memory(m.file, with_context(1)).cells, 256u);
  // A context shorter than the micro-batch limits the compute tokens: T = 256.
  EXPECT_EQ(estimate_memory(m.file, with_context(1)).compute.vram, 4u * 256 * (2 * 64 + 3 * 128));
}

TEST(MemoryEstimate, GpuLayersSplitWeightsCachesAndCompute) {
  const BuiltModel m(llama_like());
  EstimateOptions o = with_context(4096);
  o.gpu_layers = 2;  // the last two layers; the output layer stays on the CPU
  const MemoryEstimate e = estimate_memory(m.file, o);
  EXPECT_EQ(e.offloaded_layers, 2u);
  EXPECT_FALSE(e.output_offloaded);
  EXPECT_FALSE(e.layers[1].offloaded);
  EXPECT_TRUE(e.layers[2].offloaded);
  EXPECT_EQ(e.layer_weights.ram, 2 * kLlamaLayerBytes);
  EXPECT_EQ(e.layer_weights.vram, 2 * kLlamaLayerBytes);
  EXPECT_EQ(e.output_weights.ram, kLlamaOutputBytes);
  EXPECT_EQ(e.k_cache.ram, 2u * 4096 * 16 * 2);
  EXPECT_EQ(e.k_cache.vram, 2u * 4096 * 16 * 2);
  EXPECT_EQ(e.compute.ram, 1048576u);   // CPU layers (and the logits, which are smaller)
  EXPECT_EQ(e.compute.vram, 1048576u);  // GPU layers

  o.gpu_layers = 4;  // every layer, but not the output layer
  const MemoryEstimate four = estimate_memory(m.file, o);
  EXPECT_FALSE(four.output_offloaded);
  EXPECT_EQ(four.output_weights.ram, kLlamaOutputBytes);
  EXPECT_EQ(four.compute.ram, 196608u);  // the logits only
  o.gpu_layers = 5;
  EXPECT_TRUE(estimate_memory(m.file, o).output_offloaded);

  o.gpu_layers = 0;  // all in RAM
  const MemoryEstimate cpu = estimate_memory(m.file, o);
  EXPECT_EQ(cpu.total().vram, 0u);
  EXPECT_EQ(cpu.total().ram, cpu.weights().total() + 2u * 4 * 4096 * 16 * 2 + 1048576);
}

TEST(MemoryEstimate, TiedEmbeddingsAreCopiedToTheGpuForTheOutputLayer) {
  LlamaOptions lo;
  lo.tied_embeddings = true;
  const BuiltModel m(llama_like(lo));
  const MemoryEstimate e = estimate_memory(m.file, with_context(4096));
  EXPECT_EQ(e.input_weights.ram, kLlamaInputBytes);
  EXPECT_EQ(e.output_weights.vram, 256 + kLlamaInputBytes);  // output_norm, and token_embd again
  EstimateOptions cpu = with_context(4096);
  cpu.gpu_layers = 0;
  EXPECT_EQ(estimate_memory(m.file, cpu).output_weights.ram, 256u);  // the mapped embeddings serve both
}

TEST(MemoryEstimate, PerLayerKvHeadsAndQuantizedCacheTypes) {
  LlamaOptions lo;
  lo.head_count_kv = {2, 4, 1, 0};
  lo.key_length = 32;
  lo.value_length = 16;
  const BuiltModel m(llama_like(lo));
  const MemoryEstimate e = estimate_memory(m.file, with_context(2048));
  // K rows 32 * {2, 4, 1, 0} = 64, 128, 32, 0 values; V rows 16 * heads.
  EXPECT_EQ(e.k_cache.total(), 2048u * (64 + 128 + 32) * 2);
  EXPECT_EQ(e.v_cache.total(), 2048u * (32 + 64 + 16) * 2);
  EXPECT_EQ(e.layers[3].cells, 0u);
  EXPECT_EQ(e.layers[3].k_cache, 0u);

  // q8_0: 34 bytes per 32 values; K rows of 64, 128 and 32 values are 2, 4 and 1 blocks.
  EstimateOptions q = with_context(2048);
  q.k_type = find_kv_cache_type("q8_0");
  q.v_type = find_kv_cache_type("f32");
  const MemoryEstimate eq = estimate_memory(m.file, q);
  EXPECT_EQ(eq.k_cache.total(), 2048u * (2 + 4 + 1) * 34);
  EXPECT_EQ(eq.v_cache.total(), 2048u * (32 + 64 + 16) * 4);
  // q4_0 V: the 16-value rows of layer 2 are not whole 32-value blocks.
  q.v_type = find_kv_cache_type("q4_0");
  try {
    estimate_memory(m.file, q);
    FAIL() << "expected an error";
  } catch (const Error& err) {
    EXPECT_EQ(err.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(err.what()).find("layer 2's V row of 16 values (16 per head x 1 KV heads)"),
              std::string::npos)
        << err.what();
  }
}

TEST(MemoryEstimate, SlidingWindowLayersKeepAWindowOfCells) {
  LlamaOptions lo;
  lo.architecture = "gemma2";
  GgufBuilder b = llama_like(lo);
  b.kv_u32("gemma2.attention.sliding_window", 1024);
  const BuiltModel m(b);
  const MemoryEstimate e = estimate_memory(m.file, with_context(8192));
  // Layers 0 and 2 hold min(8192, 1024 + 512) = 1536 cells; layers 1 and 3 the whole 8192.
  EXPECT_EQ(e.swa_cells, 1536u);
  EXPECT_EQ(e.layers[0].cells, 1536u);
  EXPECT_EQ(e.layers[1].cells, 8192u);
  EXPECT_EQ(e.k_cache.total(), (2u * 1536 + 2u * 8192) * 16 * 2);
  // The window grows with the micro-batch, and never beyond the context.
  EstimateOptions o = with_context(8192);
  o.ubatch = 128;
  EXPECT_EQ(estimate_memory(m.file, o).swa_cells, 1024u + 128);
  EXPECT_EQ(estimate_memory(m.file, with_context(1000)).swa_cells, 1024u);  // the 1024 cells of the context
}

TEST(MemoryEstimate, RecurrentLayersKeepStatesNotCaches) {
  const BuiltModel m(mamba_like());
  EstimateOptions o = with_context(4096);
  o.gpu_layers = 1;
  const MemoryEstimate e = estimate_memory(m.file, o);
  EXPECT_EQ(e.k_cache.total() + e.v_cache.total(), 0u);
  // (3 * 128 + 16 * 128) f32 values per layer and sequence.
  EXPECT_EQ(e.layers[0].recurrent_state, (384u + 2048) * 4);
  EXPECT_EQ(e.recurrent_state.ram, (384u + 2048) * 4);
  EXPECT_EQ(e.recurrent_state.vram, (384u + 2048) * 4);
  EXPECT_EQ(e.layer_weights.ram, 18u * 2 * 256);

  // A hybrid (jamba): attention layers 1 and 3 have caches, recurrent layers 0 and 2 states.
  const BuiltModel jm(jamba_like());
  const MemoryEstimate h = estimate_memory(jm.file, with_context(4096));
  EXPECT_EQ(h.k_cache.total(), 2u * 4096 * 16 * 2);
  EXPECT_EQ(h.recurrent_state.total(), 2u * (384 + 2048) * 4);
  EXPECT_EQ(h.layers[0].k_cache, 0u);
  EXPECT_EQ(h.layers[1].recurrent_state, 0u);
}

TEST(MemoryEstimate, MixtureOfExpertsCountsEveryExpertAndTheActiveOnesInCompute) {
  GgufBuilder b;
  b.kv_str("general.architecture", "qwen3moe");
  b.kv_u32("qwen3moe.embedding_length", 64);
  b.kv_u32("qwen3moe.block_count", 2);
  b.kv_u32("qwen3moe.feed_forward_length", 32);
  b.kv_u32("qwen3moe.expert_feed_forward_length", 64);
  b.kv_u32("qwen3moe.expert_count", 4);
  b.kv_u32("qwen3moe.expert_used_count", 2);
  b.kv_u32("qwen3moe.attention.head_count", 4);
  b.kv_u32("qwen3moe.attention.head_count_kv", 1);
  b.kv_u32("qwen3moe.attention.key_length", 32);
  b.kv_u32("qwen3moe.attention.value_length", 32);
  b.kv_u32("qwen3moe.vocab_size", 100);
  for (int l = 0; l < 2; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    b.tensor(p + "ffn_gate_exps.weight", {64, 64, 4}, kTypeQ4_0);  // 16384 values: 9216 bytes
    b.tensor(p + "ffn_up_exps.weight", {64, 64, 4}, kTypeQ4_0);
    b.tensor(p + "ffn_down_exps.weight", {64, 64, 4}, kTypeQ4_0);
    b.tensor(p + "ffn_gate_inp.weight", {64, 4}, kTypeF32);  // 1024 bytes
  }
  const BuiltModel m(b);
  const MemoryEstimate e = estimate_memory(m.file, with_context(512));
  EXPECT_EQ(e.layer_weights.total(), 2u * (3 * 9216 + 1024));
  EXPECT_EQ(e.k_cache.total(), 2u * 512 * 32 * 2);
  // FFN width max(32, 2 experts * 64) = 128: 4 * 512 * (2 * 64 + 3 * 128); logits 4 * 512 * (100 + 64).
  EXPECT_EQ(e.compute.vram, 4u * 512 * (128 + 384));
}

TEST(MemoryEstimate, MissingKeysGiveWeightsAndNotes) {
  GgufBuilder b;
  b.kv_str("general.architecture", "mystery");
  b.tensor("token_embd.weight", {64, 32}, kTypeF16);
  b.tensor("blk.0.w", {64}, kTypeF32);
  b.tensor("blk.1.w", {64}, kTypeF32);
  const BuiltModel m(b);
  const MemoryEstimate e = estimate_memory(m.file, with_context(4096));
  EXPECT_EQ(e.layer_count, 2u);
  EXPECT_EQ(e.layer_weights.total(), 512u);
  EXPECT_EQ(e.input_weights.ram, 4096u);
  EXPECT_EQ(e.k_cache.total(), 0u);
  EXPECT_FALSE(e.model.notes.empty());
  // The vocabulary comes from token_embd's second dimension: logits 4 * 512 * (32 + 0).
  EXPECT_EQ(e.compute.vram, 4u * 512 * 32);

  // A file with no tensors and no keys at all.
  const BuiltModel empty{GgufBuilder{}};
  const MemoryEstimate none = estimate_memory(empty.file, with_context(4096));
  EXPECT_EQ(none.total().total(), 0u);
}

TEST(MemoryEstimate, BigEndianFileEstimatesTheSame) {
  LlamaOptions lo;
  lo.head_count_kv = {2, 4, 1, 0};
  const BuiltModel le(llama_like(lo));
  lo.big_endian = true;
  const BuiltModel be(llama_like(lo));
  const MemoryEstimate a = estimate_memory(le.file, with_context(4096)),
                       b = estimate_memory(be.file, with_context(4096));
  EXPECT_EQ(a.k_cache.total(), b.k_cache.total());
  EXPECT_EQ(a.v_cache.total(), b.v_cache.total());
  EXPECT_EQ(a.total().total(), b.total().total());
}

TEST(MemoryEstimate, BadOptionsAreErrors) {
  const BuiltModel m(llama_like());
  EXPECT_THROW(estimate_memory(m.file, with_context(0)), Error);
  EstimateOptions o;
  o.ubatch = 0;
  EXPECT_THROW(estimate_memory(m.file, o), Error);
  EXPECT_EQ(find_kv_cache_type("q2_k"), nullptr);  // a format, but not a cache type
  EXPECT_EQ(find_kv_cache_type("gguf:q8_0"), find_kv_cache_type("Q8_0"));
  EXPECT_EQ(kv_cache_type_names().size(), 9u);
}

// The JSON every front end prints: the figures of the estimate, RAM, VRAM and both per row, each layer.
TEST(MemoryEstimateJson, HoldsTheEstimatesFiguresPerDeviceAndLayer) {
  const BuiltModel m(llama_like());
  EstimateOptions o = with_context(4096);
  o.gpu_layers = 2;
  const MemoryEstimate e = estimate_memory(m.file, o);
  const auto j = nlohmann::ordered_json::parse(memory_estimate_json(e, "m.gguf"));
  EXPECT_EQ(j["file"], "m.gguf");
  EXPECT_EQ(j["context"], 4096u);
  EXPECT_EQ(j["kv_cells"], e.cells);
  EXPECT_EQ(j["k_type"], "f16");
  EXPECT_EQ(j["offloaded_layers"], 2u);
  EXPECT_EQ(j["output_offloaded"], false);
  EXPECT_EQ(j["ram"]["layers"], e.layer_weights.ram);
  EXPECT_EQ(j["vram"]["k_cache"], e.k_cache.vram);
  EXPECT_EQ(j["total"]["total"], e.total().total());
  EXPECT_EQ(j["total"]["weights"], e.weights().total());
  EXPECT_EQ(j["compute_is_approximate"], true);
  ASSERT_EQ(j["per_layer"].size(), 4u);
  EXPECT_EQ(j["per_layer"][2]["offloaded"], true);
  EXPECT_EQ(j["per_layer"][1]["offloaded"], false);
  EXPECT_EQ(j["per_layer"][3]["attention"], "full");
  EXPECT_EQ(j["per_layer"][3]["k_cache"], e.layers[3].k_cache);
  EXPECT_EQ(j["notes"].size(), e.model.notes.size() + e.notes.size());
  // Keys keep their order: scripts and the man page list them so.
  EXPECT_EQ(j.begin().key(), "file");
}

TEST(MemoryEstimateJson, NamesEachKindOfLayerAttention) {
  LayerAttention a;
  EXPECT_EQ(layer_attention_name(a), "none");
  a.kv_cache = true;
  EXPECT_EQ(layer_attention_name(a), "full");
  a.sliding_window = true;
  EXPECT_EQ(layer_attention_name(a), "sliding window");
  a.shares_kv = true;
  EXPECT_EQ(layer_attention_name(a), "shared KV");
  a.recurrent = true;
  EXPECT_EQ(layer_attention_name(a), "recurrent+attention");
  a.kv_cache = false;
  EXPECT_EQ(layer_attention_name(a), "recurrent");
}

TEST(MemoryEstimate, GpuLayersAreACountOrAll) {
  EXPECT_EQ(parse_gpu_layers("all"), -1);
  EXPECT_EQ(parse_gpu_layers("-1"), -1);
  EXPECT_EQ(parse_gpu_layers("0"), 0);
  EXPECT_EQ(parse_gpu_layers("33"), 33);
  EXPECT_FALSE(parse_gpu_layers("-2"));
  EXPECT_FALSE(parse_gpu_layers("3x"));
  EXPECT_FALSE(parse_gpu_layers(""));
  EXPECT_FALSE(parse_gpu_layers("ALL"));
}

}  // namespace
}  // namespace onnxq
