// plan_quantization against llama-quantize's choices, every expected type worked out by hand from
// llama.cpp's src/llama-quant.cpp at 007dbbf3fd17 (llama_tensor_get_type_impl, its fallbacks and
// counters), on synthetic tensor lists: a llama-like dense model with GQA (untied and tied
// embeddings), an 8-expert model, a small model whose rows are not multiples of 256, and diffusion-
// style tensors of an architecture llama.cpp does not know. Then overrides and refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "convert/llama_presets.hpp"
#include "onnxq/convert/quantize_plan.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/formats/format.hpp"

namespace onnxq {
namespace {

// ggml type numbers, spelled as the rules read.
enum : std::uint32_t {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q2_K = 10,
  Q3_K = 11,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  IQ2_XXS = 16,
  IQ3_XXS = 18,
  IQ1_S = 19,
  IQ4_NL = 20,
  IQ3_S = 21,
  IQ2_S = 22,
  BF16 = 30,
  MXFP4 = 39,
};

struct Model {
  GgufMetadata metadata;
  std::vector<PlanInputTensor> tensors;

  void add(const std::string& name, std::vector<std::uint64_t> ne, std::uint32_t type = F16) {
    tensors.push_back({name, std::move(ne), type});
  }
  void u32(const std::string& key, std::uint32_t v) { metadata.set(key, GgufOwnedValue::u32(v)); }
  void arch(const std::string& name) { metadata.set("general.architecture", GgufOwnedValue::string(name)); }
};

QuantizePlanOptions with_type(const std::string& type, bool imatrix = false) {
  QuantizePlanOptions o;
  o.type = type;
  o.have_imatrix = imatrix;
  return o;
}

std::map<std::string, std::uint32_t> types_of(const Model& m, const QuantizePlan& plan) {
  std::map<std::string, std::uint32_t> out;
  for (std::size_t i = 0; i < m.tensors.size(); ++i) out[m.tensors[i].name] = plan.tensors[i].to_type;
  return out;
}

std::string layer_name(int layer, const std::string& suffix) { return "blk." + std::to_string(layer) + "." + suffix; }

// Roles of a llama layer; the expected type of each comes from a per-preset function below.
const std::vector<std::string> kDenseRoles = {"attn_norm.weight", "attn_q.weight",      "attn_k.weight",
                                              "attn_v.weight",    "attn_output.weight", "ffn_norm.weight",
                                              "ffn_gate.weight",  "ffn_up.weight",      "ffn_down.weight"};

// A Llama-3-8B-shaped model: 32 layers, 32 heads, 8 KV heads (GQA 4), F16 weights and F32 norms.
// The tensors are stored in name order (blk.0, blk.1, blk.10, ... as a safetensors-derived file
// has them), so a plan that counted layers in file order would differ from llama-quantize's.
Model llama_dense(int layers, bool tied, std::uint64_t embd = 4096, std::uint64_t ff = 14336, std::uint64_t kv = 1024,
                  std::uint64_t vocab = 128256) {
  Model m;
  m.arch("llama");
  m.u32("llama.block_count", static_cast<std::uint32_t>(layers));
  m.u32("llama.attention.head_count", 32);
  m.u32("llama.attention.head_count_kv", 8);
  std::map<std::string, std::pair<std::vector<std::uint64_t>, std::uint32_t>> by_name;
  for (int l = 0; l < layers; ++l) {
    by_name[layer_name(l, "attn_norm.weight")] = {{embd}, F32};
    by_name[layer_name(l, "attn_q.weight")] = {{embd, embd}, F16};
    by_name[layer_name(l, "attn_k.weight")] = {{embd, kv}, F16};
    by_name[layer_name(l, "attn_v.weight")] = {{embd, kv}, F16};
    by_name[layer_name(l, "attn_output.weight")] = {{embd, embd}, F16};
    by_name[layer_name(l, "ffn_norm.weight")] = {{embd}, F32};
    by_name[layer_name(l, "ffn_gate.weight")] = {{embd, ff}, F16};
    by_name[layer_name(l, "ffn_up.weight")] = {{embd, ff}, F16};
    by_name[layer_name(l, "ffn_down.weight")] = {{ff, embd}, F16};
  }
  by_name["token_embd.weight"] = {{embd, vocab}, F16};
  by_name["output_norm.weight"] = {{embd}, F32};
  if (!tied) by_name["output.weight"] = {{embd, vocab}, F16};
  for (auto& [name, v] : by_name) m.add(name, v.first, v.second);
  return m;
}

// Checks every tensor of a llama_dense model: norms copied as F32, the rest as `expect` says.
void expect_dense(const Model& m, const QuantizePlan& plan, int layers,
                  const std::function<std::uint32_t(int, const std::string&)>& expect, std::uint32_t output,
                  std::uint32_t token_embd) {
  const auto got = types_of(m, plan);
  for (int l = 0; l < layers; ++l)
    for (const std::string& role : kDenseRoles) {
      const std::string name = layer_name(l, role);
      const std::uint32_t want = role.find("norm") != std::string::npos ? F32 : expect(l, role);
      EXPECT_EQ(got.at(name), want) << name;
    }
  EXPECT_EQ(got.at("output_norm.weight"), F32);
  if (got.count("output.weight")) {
    EXPECT_EQ(got.at("output.weight"), output);
  }
  EXPECT_EQ(got.at("token_embd.weight"), token_embd);
}

// use_more_bits(i, 32): i < 4, i >= 28, or (i - 4) % 3 == 2. Worked out by hand: 16 layers, "half of
// the attention.wv and feed_forward.w2 tensors" as TheBloke's model cards describe Q4_K_M.
const std::set<int> kMoreBits32 = {0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30, 31};
bool more32(int l) { return kMoreBits32.count(l) != 0; }

TEST(QuantizePlan, RuleConstantsAreTheFormatTablesNumbers) {
  using namespace convert_detail;
  const std::pair<const char*, std::uint32_t> rows[] = {
      {"f32", ggml::F32},         {"f16", ggml::F16},       {"q4_0", ggml::Q4_0},       {"q4_1", ggml::Q4_1},
      {"q5_0", ggml::Q5_0},       {"q5_1", ggml::Q5_1},     {"q8_0", ggml::Q8_0},       {"q8_1", ggml::Q8_1},
      {"q2_k", ggml::Q2_K},       {"q3_k", ggml::Q3_K},     {"q4_k", ggml::Q4_K},       {"q5_k", ggml::Q5_K},
      {"q6_k", ggml::Q6_K},       {"q8_k", ggml::Q8_K},     {"iq2_xxs", ggml::IQ2_XXS}, {"iq2_xs", ggml::IQ2_XS},
      {"iq3_xxs", ggml::IQ3_XXS}, {"iq1_s", ggml::IQ1_S},   {"iq4_nl", ggml::IQ4_NL},   {"iq3_s", ggml::IQ3_S},
      {"iq2_s", ggml::IQ2_S},     {"iq4_xs", ggml::IQ4_XS}, {"iq1_m", ggml::IQ1_M},     {"bf16", ggml::BF16},
      {"tq1_0", ggml::TQ1_0},     {"tq2_0", ggml::TQ2_0},   {"mxfp4", ggml::MXFP4},     {"nvfp4", ggml::NVFP4},
      {"q1_0", ggml::Q1_0},       {"q2_0", ggml::Q2_0},
  };
  for (const auto& [name, type] : rows) {
    const BlockFormat* f = find_format(name);
    ASSERT_NE(f, nullptr) << name;
    EXPECT_EQ(f->ggml_type, type) << name;
  }
}

TEST(QuantizePlan, DenseGqaQ4KM) {
  const Model m = llama_dense(32, false);
  const QuantizePlan plan = plan_quantization(m.metadata, m.tensors, with_type("Q4_K_M"));
  EXPECT_TRUE(plan.preset);
  EXPECT_TRUE(plan.architecture_known);
  EXPECT_EQ(plan.file_type, 15u);
  expect_dense(
      m, plan, 32,
      [](int l, const std::string& role) -> std::uint32_t {
        if (role == "attn_v.weight" || role == "ffn_down.weight") return more32(l) ? Q6_K : Q4_K;
        return Q4_K;
      },
      Q6_K, Q4_K);
  // Bytes: a 4096 x 4096 F16 tensor is 32 MiB; as Q4_K, 65536 blocks of 144 bytes.
  const auto i =
      std::find_if(m.tensors.begin(), m.tensors.end(), [](auto& t) { return t.name == "blk.0.attn_q.weight"; });
  const PlannedTensor& q = plan.tensors[i - m.tensors.begin()];
  EXPECT_EQ(q.bytes_before, 4096u * 4096 * 2);
  EXPECT_EQ(q.bytes_after, 4096u * 4096 / 256 * 144);
  EXPECT_FALSE(q.copy);
  EXPECT_EQ(q.reason, "Q4_K_M");
}

TEST(QuantizePlan, DenseGqaQ4KSQ3KMQ2KQ5KMQ6KQ8_0) {
  const Model m = llama_dense(32, false);
  // Q4_K_S: attn_v and ffn_down of the first four layers (i < 4, and i < 32/8) get Q5_K.
  expect_dense(
      m, plan_quantization(m.metadata, m.tensors, with_type("Q4_K_S")), 32,
      [](int l, const std::string& role) -> std::uint32_t {
        if (role == "attn_v.weight" || role == "ffn_down.weight") return l < 4 ? Q5_K : Q4_K;
        return Q4_K;
      },
      Q6_K, Q4_K);
  // Q3_K_M: attn_v Q5_K for the first two, else Q4_K; ffn_down Q5_K below 32/16, else Q4_K (not
  // falcon); attn_output Q4_K.
  expect_dense(
      m, plan_quantization(m.metadata, m.tensors, with_type("Q3_K_M")), 32,
      [](int l, const std::string& role) -> std::uint32_t {
        if (role == "attn_v.weight" || role == "ffn_down.weight") return l < 2 ? Q5_K : Q4_K;
        if (role == "attn_output.weight") return Q4_K;
        return Q3_K;
      },
      Q6_K, Q3_K);
  // Q2_K: attn_v Q4_K (GQA 4), ffn_down and attn_output Q3_K.
  expect_dense(
      m, plan_quantization(m.metadata, m.tensors, with_type("Q2_K")), 32,
      [](int, const std::string& role) -> std::uint32_t {
        if (role == "attn_v.weight") return Q4_K;
        if (role == "ffn_down.weight" || role == "attn_output.weight") return Q3_K;
        return Q2_K;
      },
      Q6_K, Q2_K);
  // Q5_K_M: the Q4_K_M pattern over Q5_K.
  expect_dense(
      m, plan_quantization(m.metadata, m.tensors, with_type("Q5_K_M")), 32,
      [](int l, const std::string& role) -> std::uint32_t {
        if (role == "attn_v.weight" || role == "ffn_down.weight") return more32(l) ? Q6_K : Q5_K;
        return Q5_K;
      },
      Q6_K, Q5_K);
  expect_dense(
      m, plan_quantization(m.metadata, m.tensors, with_type("Q6_K")), 32,
      [](int, const std::string&) -> std::uint32_t { return Q6_K; }, Q6_K, Q6_K);
  // Q8_0: the output stays Q8_0 (the rule only raises other types to Q6_K).
  const QuantizePlan q8 = plan_quantization(m.metadata, m.tensors, with_type("Q8_0"));
  EXPECT_TRUE(q8.preset);
  EXPECT_EQ(q8.file_type, 7u);
  expect_dense(
      m, q8, 32, [](int, const std::string&) -> std::uint32_t { return Q8_0; }, Q8_0, Q8_0);
}

TEST(QuantizePlan, DenseGqaIQ3MIQ2MIQ1S) {
  const Model m = llama_dense(32, false);
  // IQ3_M (IQ3_S base): attn_v Q4_K, ffn_down Q4_K below 32/8, attn_output Q4_K, output Q6_K.
  expect_dense(
      m, plan_quantization(m.metadata, m.tensors, with_type("IQ3_M")), 32,
      [](int l, const std::string& role) -> std::uint32_t {
        if (role == "attn_v.weight" || role == "attn_output.weight") return Q4_K;
        if (role == "ffn_down.weight") return l < 4 ? Q4_K : IQ3_S;
        return IQ3_S;
      },
      Q6_K, IQ3_S);
  // IQ2_M (IQ2_S base, needs an imatrix): attn_v Q4_K (GQA 4), the first eighth of ffn_down IQ3_S,
  // attn_output IQ3_S, output Q5_K, token_embd IQ3_S.
  expect_dense(
      m, plan_quantization(m.metadata, m.tensors, with_type("IQ2_M", true)), 32,
      [](int l, const std::string& role) -> std::uint32_t {
        if (role == "attn_v.weight") return Q4_K;
        if (role == "ffn_down.weight") return l < 4 ? IQ3_S : IQ2_S;
        if (role == "attn_output.weight") return IQ3_S;
        return IQ2_S;
      },
      Q5_K, IQ3_S);
  // IQ1_S: attn_v Q4_K, the first eighth of ffn_down Q2_K, attn_output IQ2_XXS, output Q5_K,
  // token_embd Q2_K.
  expect_dense(
      m, plan_quantization(m.metadata, m.tensors, with_type("IQ1_S", true)), 32,
      [](int l, const std::string& role) -> std::uint32_t {
        if (role == "attn_v.weight") return Q4_K;
        if (role == "ffn_down.weight") return l < 4 ? Q2_K : IQ1_S;
        if (role == "attn_output.weight") return IQ2_XXS;
        return IQ1_S;
      },
      Q5_K, Q2_K);
}

TEST(QuantizePlan, DenseGqaIQ3XSIQ3XXS) {
  const Model m = llama_dense(32, false);
  // IQ3_XS (IQ3_S base): attn_v Q4_K (GQA 4), attn_q and attn_k IQ3_XXS, ffn_gate and ffn_up IQ3_XXS
  // from layer 32/8 to below 7*32/8, output Q6_K.
  expect_dense(
      m, plan_quantization(m.metadata, m.tensors, with_type("IQ3_XS", true)), 32,
      [](int l, const std::string& role) -> std::uint32_t {
        if (role == "attn_v.weight") return Q4_K;
        if (role == "attn_q.weight" || role == "attn_k.weight") return IQ3_XXS;
        if (role == "ffn_gate.weight" || role == "ffn_up.weight") return l >= 4 && l < 28 ? IQ3_XXS : IQ3_S;
        return IQ3_S;
      },
      Q6_K, IQ3_S);
  // IQ3_XXS with an importance matrix: attn_v Q4_K, attn_q and attn_k IQ2_S, attn_output IQ3_S,
  // ffn_down unchanged (its rule is for plans without an importance matrix), output Q5_K.
  expect_dense(
      m, plan_quantization(m.metadata, m.tensors, with_type("IQ3_XXS", true)), 32,
      [](int, const std::string& role) -> std::uint32_t {
        if (role == "attn_v.weight") return Q4_K;
        if (role == "attn_q.weight" || role == "attn_k.weight") return IQ2_S;
        if (role == "attn_output.weight") return IQ3_S;
        return IQ3_XXS;
      },
      Q5_K, IQ3_S);
}

TEST(QuantizePlan, DenseMxfp4MoeIsQ8_0) {
  const Model m = llama_dense(4, false);
  const QuantizePlan plan = plan_quantization(m.metadata, m.tensors, with_type("MXFP4_MOE"));
  EXPECT_EQ(plan.file_type, 38u);
  expect_dense(
      m, plan, 4, [](int, const std::string&) -> std::uint32_t { return Q8_0; }, Q8_0, Q8_0);
}

TEST(QuantizePlan, TiedEmbeddingsTakeTheOutputRule) {
  // Llama-3.2-1B-shaped: 16 layers, no output.weight. use_more_bits(i, 16): i < 2, i >= 14, or
  // (i - 2) % 3 == 2: layers 0, 1, 4, 7, 10, 13, 14, 15.
  const Model m = llama_dense(16, true, 2048, 8192, 512);
  const std::set<int> more = {0, 1, 4, 7, 10, 13, 14, 15};
  expect_dense(
      m, plan_quantization(m.metadata, m.tensors, with_type("Q4_K_M")), 16,
      [&](int l, const std::string& role) -> std::uint32_t {
        if (role == "attn_v.weight" || role == "ffn_down.weight") return more.count(l) ? Q6_K : Q4_K;
        return Q4_K;
      },
      0, Q6_K);
  // IQ2_M: the tied token_embd gets the output's Q5_K, not token_embd's IQ3_S.
  const auto iq2m = types_of(m, plan_quantization(m.metadata, m.tensors, with_type("IQ2_M", true)));
  EXPECT_EQ(iq2m.at("token_embd.weight"), Q5_K);
  // MXFP4_MOE: Q8_0 either way.
  const auto mx = types_of(m, plan_quantization(m.metadata, m.tensors, with_type("MXFP4_MOE")));
  EXPECT_EQ(mx.at("token_embd.weight"), Q8_0);
}

// A Mixtral-shaped model: llama with 8 experts, 32 layers, GQA 4, expert tensors 3-D, plus a
// shared expert's ffn_down (as Qwen2MoE has), so that two tensors per layer count as ffn_down.
Model llama_moe() {
  Model m;
  m.arch("llama");
  m.u32("llama.block_count", 32);
  m.u32("llama.attention.head_count", 32);
  m.u32("llama.attention.head_count_kv", 8);
  m.u32("llama.expert_count", 8);
  m.add("token_embd.weight", {4096, 32000});
  for (int l = 0; l < 32; ++l) {
    m.add(layer_name(l, "attn_norm.weight"), {4096}, F32);
    m.add(layer_name(l, "attn_q.weight"), {4096, 4096});
    m.add(layer_name(l, "attn_k.weight"), {4096, 1024});
    m.add(layer_name(l, "attn_v.weight"), {4096, 1024});
    m.add(layer_name(l, "attn_output.weight"), {4096, 4096});
    m.add(layer_name(l, "ffn_norm.weight"), {4096}, F32);
    m.add(layer_name(l, "ffn_gate_inp.weight"), {4096, 8}, F32);
    m.add(layer_name(l, "ffn_gate_exps.weight"), {4096, 14336, 8});
    m.add(layer_name(l, "ffn_up_exps.weight"), {4096, 14336, 8});
    m.add(layer_name(l, "ffn_down_exps.weight"), {14336, 4096, 8});
    m.add(layer_name(l, "ffn_down_shexp.weight"), {14336, 4096});
  }
  m.add("output_norm.weight", {4096}, F32);
  m.add("output.weight", {4096, 32000});
  return m;
}

void expect_moe(const QuantizePlan& plan, const Model& m,
                const std::function<std::uint32_t(int, const std::string&)>& expect, std::uint32_t output,
                std::uint32_t token_embd) {
  const auto got = types_of(m, plan);
  for (int l = 0; l < 32; ++l)
    for (const char* role :
         {"attn_q.weight", "attn_k.weight", "attn_v.weight", "attn_output.weight", "ffn_gate_exps.weight",
          "ffn_up_exps.weight", "ffn_down_exps.weight", "ffn_down_shexp.weight"})
      EXPECT_EQ(got.at(layer_name(l, role)), expect(l, role)) << layer_name(l, role);
  for (int l = 0; l < 32; ++l) EXPECT_EQ(got.at(layer_name(l, "ffn_gate_inp.weight")), F32);  // the router
  EXPECT_EQ(got.at("output.weight"), output);
  EXPECT_EQ(got.at("token_embd.weight"), token_embd);
}

TEST(QuantizePlan, EightExpertsQ4KMIQ3MQ2KMxfp4IQ2M) {
  const Model m = llama_moe();
  // Q4_K_M: attn_v and attn_k Q8_0 (8 experts), attn_output Q5_K, ffn_down by its blk number (not
  // by the counter, which passes two ffn_down tensors per layer).
  expect_moe(
      plan_quantization(m.metadata, m.tensors, with_type("Q4_K_M")), m,
      [](int l, const std::string& role) -> std::uint32_t {
        if (role == "attn_v.weight" || role == "attn_k.weight") return Q8_0;
        if (role == "attn_output.weight") return Q5_K;
        if (role.find("ffn_down") == 0) return more32(l) ? Q6_K : Q4_K;
        return Q4_K;
      },
      Q6_K, Q4_K);
  // IQ3_M: ffn_down Q4_K below 32/8 or where use_more_bits (8 experts).
  expect_moe(
      plan_quantization(m.metadata, m.tensors, with_type("IQ3_M")), m,
      [](int l, const std::string& role) -> std::uint32_t {
        if (role == "attn_v.weight" || role == "attn_k.weight") return Q8_0;
        if (role == "attn_output.weight") return Q5_K;
        if (role.find("ffn_down") == 0) return more32(l) ? Q4_K : IQ3_S;
        return IQ3_S;
      },
      Q6_K, IQ3_S);
  expect_moe(
      plan_quantization(m.metadata, m.tensors, with_type("Q2_K")), m,
      [](int, const std::string& role) -> std::uint32_t {
        if (role == "attn_v.weight" || role == "attn_k.weight") return Q8_0;
        if (role == "attn_output.weight") return Q5_K;
        if (role.find("ffn_down") == 0) return Q3_K;
        return Q2_K;
      },
      Q6_K, Q2_K);
  // MXFP4_MOE: the 3-D expert tensors MXFP4, everything else Q8_0.
  expect_moe(
      plan_quantization(m.metadata, m.tensors, with_type("MXFP4_MOE")), m,
      [](int, const std::string& role) -> std::uint32_t {
        return role.find("exps") != std::string::npos ? MXFP4 : Q8_0;
      },
      Q8_0, Q8_0);
  // IQ2_M: the very-low-bit branch: attn_v Q4_K (experts >= 4, no Q8_0 bump there), attn_k Q4_K,
  // attn_output Q5_K, and IQ3_S for ffn_down while the counter is below 32/8: this branch reads the
  // counter even with experts, so the four are blk.0's and blk.1's two each.
  expect_moe(
      plan_quantization(m.metadata, m.tensors, with_type("IQ2_M", true)), m,
      [](int l, const std::string& role) -> std::uint32_t {
        if (role == "attn_v.weight" || role == "attn_k.weight") return Q4_K;
        if (role == "attn_output.weight") return Q5_K;
        if (role.find("ffn_down") == 0) return l < 2 ? IQ3_S : IQ2_S;
        return IQ2_S;
      },
      Q5_K, IQ3_S);
}

TEST(QuantizePlan, SeventyBFalconAndPerLayerHeadCounts) {
  // Llama with 80 layers and fewer KV heads than heads is the loader's 70B: attn_v's Q3_K and Q4_K
  // become Q5_K. With as many KV heads as heads it is the 65B, and nothing changes.
  Model b70 = llama_dense(80, false, 8192, 28672, 1024, 32000);
  b70.u32("llama.attention.head_count", 64);
  const auto q3 = types_of(b70, plan_quantization(b70.metadata, b70.tensors, with_type("Q3_K_M")));
  const auto q2 = types_of(b70, plan_quantization(b70.metadata, b70.tensors, with_type("Q2_K")));
  for (int l = 0; l < 80; ++l) {
    EXPECT_EQ(q3.at(layer_name(l, "attn_v.weight")), Q5_K) << l;  // Q5_K for the first two anyway
    EXPECT_EQ(q2.at(layer_name(l, "attn_v.weight")), Q5_K) << l;  // GQA 8: Q4_K, then Q5_K
  }
  b70.u32("llama.attention.head_count_kv", 64);
  const auto b65 = types_of(b70, plan_quantization(b70.metadata, b70.tensors, with_type("Q3_K_M")));
  EXPECT_EQ(b65.at("blk.1.attn_v.weight"), Q5_K);
  EXPECT_EQ(b65.at("blk.2.attn_v.weight"), Q4_K);

  // Falcon: fused attn_qkv (attn_v's rules), output Q8_0, its own ffn_down and attn_output rules.
  Model f;
  f.arch("falcon");
  f.u32("falcon.block_count", 32);
  f.u32("falcon.attention.head_count", 71);
  f.u32("falcon.attention.head_count_kv", 1);
  f.add("token_embd.weight", {4544, 65024});
  for (int l = 0; l < 32; ++l) {
    f.add(layer_name(l, "attn_qkv.weight"), {4544, 4672});
    f.add(layer_name(l, "attn_output.weight"), {4544, 4544});
    f.add(layer_name(l, "ffn_up.weight"), {4544, 18176});
    f.add(layer_name(l, "ffn_down.weight"), {18176, 4544});
  }
  f.add("output.weight", {4544, 65024});
  // 4544 is not a multiple of 256: every Q4_K falls back to Q5_0, every Q6_K to Q8_0.
  const auto fk = types_of(f, plan_quantization(f.metadata, f.tensors, with_type("Q4_K_M")));
  for (int l = 0; l < 32; ++l) {
    EXPECT_EQ(fk.at(layer_name(l, "attn_qkv.weight")), more32(l) ? Q8_0 : Q5_0) << l;
    // ffn_down rows are 18176 = 71 * 256 long: Q6_K below 32/16, Q5_K where use_more_bits, else Q4_K.
    EXPECT_EQ(fk.at(layer_name(l, "ffn_down.weight")), l < 2 ? Q6_K : more32(l) ? Q5_K : Q4_K) << l;
    EXPECT_EQ(fk.at(layer_name(l, "attn_output.weight")), Q5_0) << l;
  }
  EXPECT_EQ(fk.at("output.weight"), Q8_0);
  EXPECT_EQ(fk.at("token_embd.weight"), Q5_0);
  const auto fl = types_of(f, plan_quantization(f.metadata, f.tensors, with_type("Q3_K_L")));
  EXPECT_EQ(fl.at("blk.9.attn_output.weight"), Q5_0);  // Falcon's Q3_K_L: Q4_K, which falls back
  EXPECT_EQ(fl.at("blk.9.ffn_down.weight"), Q4_K);     // Q4_K, not Q5_K

  // Head counts given per layer: layer 0's ratio decides (here 32 / 4 = 8, then 32 / 32).
  Model per_layer = llama_dense(4, false);
  std::vector<GgufOwnedValue> kv;
  for (std::uint32_t v : {4u, 32u, 32u, 32u}) kv.push_back(GgufOwnedValue::u32(v));
  per_layer.metadata.set("llama.attention.head_count_kv", GgufOwnedValue::array(GgufType::UInt32, kv));
  EXPECT_EQ(types_of(per_layer, plan_quantization(per_layer.metadata, per_layer.tensors, with_type("Q2_K")))
                .at("blk.3.attn_v.weight"),
            Q4_K);
  std::swap(kv[0], kv[1]);  // layer 0: 32 / 32 = 1, below 4
  per_layer.metadata.set("llama.attention.head_count_kv", GgufOwnedValue::array(GgufType::UInt32, kv));
  EXPECT_EQ(types_of(per_layer, plan_quantization(per_layer.metadata, per_layer.tensors, with_type("Q2_K")))
                .at("blk.3.attn_v.weight"),
            Q3_K);
}

TEST(QuantizePlan, WhatLlamaQuantizeLeavesAlone) {
  Model m = llama_dense(2, false);
  m.add("blk.0.attn_q.bias", {4096, 1});   // 2-D in the file, one dimension to ggml_n_dims
  m.add("blk.0.empty.weight", {4096, 0});  // no rows: one dimension above 1
  m.add("blk.0.attn_q_norm.weight", {128, 4096});
  m.add("blk.0.attn_rel_b.weight", {32, 64});
  m.add("position_embd.weight", {4096, 2048});
  m.add("blk.0.ffn_gate_inp.weight", {4096, 8}, F32);
  m.add("blk.0.misc.scale", {4096, 4096});         // does not end in "weight"
  m.add("blk.0", {4096, 4096});                    // five characters pass llama.cpp's rfind test
  m.add("blk.0.int_table.weight", {4096, 8}, 26);  // I32
  const QuantizePlan plan = plan_quantization(m.metadata, m.tensors, with_type("Q4_K_M"));
  std::map<std::string, std::string> reasons;
  for (std::size_t i = 0; i < m.tensors.size(); ++i) reasons[m.tensors[i].name] = plan.tensors[i].reason;
  EXPECT_EQ(reasons.at("blk.0.attn_q.bias"), "kept: 1-D");
  EXPECT_EQ(reasons.at("blk.0.empty.weight"), "kept: 1-D");
  EXPECT_EQ(reasons.at("blk.0.attn_q_norm.weight"), "kept: a norm");
  EXPECT_EQ(reasons.at("blk.0.attn_rel_b.weight"), "kept: a relative position bias");
  EXPECT_EQ(reasons.at("position_embd.weight"), "kept: a position embedding");
  EXPECT_EQ(reasons.at("blk.0.ffn_gate_inp.weight"), "kept: an expert router");
  EXPECT_EQ(reasons.at("blk.0.misc.scale"), "kept: not a weight");
  EXPECT_EQ(reasons.at("blk.0"), "Q4_K_M");
  EXPECT_EQ(reasons.at("blk.0.int_table.weight"), "kept: i32 is not a float type");
  for (std::size_t i = 0; i < m.tensors.size(); ++i)
    if (plan.tensors[i].reason.rfind("kept: ", 0) == 0) {
      EXPECT_TRUE(plan.tensors[i].copy) << m.tensors[i].name;
      EXPECT_EQ(plan.tensors[i].to_type, m.tensors[i].ggml_type) << m.tensors[i].name;
      EXPECT_EQ(plan.tensors[i].bytes_after, plan.tensors[i].bytes_before) << m.tensors[i].name;
    }
}

TEST(QuantizePlan, ExpertTensorWithoutLayerNumberIsRefused) {
  Model m = llama_moe();
  m.add("ffn_down_shared.weight", {14336, 4096});
  EXPECT_THROW(plan_quantization(m.metadata, m.tensors, with_type("Q4_K_M")), Error);
}

// SmolLM-135M-shaped: 30 layers, width 576 (not a multiple of 256, a multiple of 32), 9 heads and
// 3 KV heads (GQA 3), tied embeddings, plus one tensor whose rows are 48 long (a multiple of 16).
Model small_model() {
  Model m;
  m.arch("llama");
  m.u32("llama.block_count", 30);
  m.u32("llama.attention.head_count", 9);
  m.u32("llama.attention.head_count_kv", 3);
  m.add("token_embd.weight", {576, 49152});
  for (int l = 0; l < 30; ++l) {
    m.add(layer_name(l, "attn_norm.weight"), {576}, F32);
    m.add(layer_name(l, "attn_q.weight"), {576, 576});
    m.add(layer_name(l, "attn_k.weight"), {576, 192});
    m.add(layer_name(l, "attn_v.weight"), {576, 192});
    m.add(layer_name(l, "attn_output.weight"), {576, 576});
    m.add(layer_name(l, "ffn_norm.weight"), {576}, F32);
    m.add(layer_name(l, "ffn_gate.weight"), {576, 1536});
    m.add(layer_name(l, "ffn_up.weight"), {576, 1536});
    m.add(layer_name(l, "ffn_down.weight"), {1536, 576});
  }
  m.add("blk.0.attn_gate_proj.weight", {48, 576});
  m.add("output_norm.weight", {576}, F32);
  return m;
}

TEST(QuantizePlan, RowsNotAMultipleOf256FallBack) {
  const Model m = small_model();
  const QuantizePlan plan = plan_quantization(m.metadata, m.tensors, with_type("Q4_K_M"));
  const auto got = types_of(m, plan);
  // use_more_bits(i, 30): i < 3, i >= 26 (7*30/8), or (i - 3) % 3 == 2.
  const std::set<int> more = {0, 1, 2, 5, 8, 11, 14, 17, 20, 23, 26, 27, 28, 29};
  for (int l = 0; l < 30; ++l) {
    // 576-long rows: Q4_K falls back to Q5_0, Q6_K to Q8_0.
    EXPECT_EQ(got.at(layer_name(l, "attn_q.weight")), Q5_0);
    EXPECT_EQ(got.at(layer_name(l, "attn_k.weight")), Q5_0);
    EXPECT_EQ(got.at(layer_name(l, "attn_v.weight")), more.count(l) ? Q8_0 : Q5_0) << l;
    EXPECT_EQ(got.at(layer_name(l, "attn_output.weight")), Q5_0);
    EXPECT_EQ(got.at(layer_name(l, "ffn_gate.weight")), Q5_0);
    EXPECT_EQ(got.at(layer_name(l, "ffn_up.weight")), Q5_0);
    // 1536-long rows fit.
    EXPECT_EQ(got.at(layer_name(l, "ffn_down.weight")), more.count(l) ? Q6_K : Q4_K) << l;
  }
  // The tied token_embd: 576 % 256 != 0, so Q8_0 (the output rule's own fallback).
  EXPECT_EQ(got.at("token_embd.weight"), Q8_0);
  // 48-long rows fit neither Q4_K nor Q5_0: F16, which the source already is.
  EXPECT_EQ(got.at("blk.0.attn_gate_proj.weight"), F16);
  const auto it =
      std::find_if(m.tensors.begin(), m.tensors.end(), [](auto& t) { return t.name == "blk.0.attn_q.weight"; });
  EXPECT_EQ(plan.tensors[it - m.tensors.begin()].reason, "Q4_K_M; fallback: 576 is not a multiple of 256, q5_0");

  // Q2_K with GQA 3: attn_v Q3_K (falls back to Q4_0), ffn_down Q3_K (fits).
  const auto q2 = types_of(m, plan_quantization(m.metadata, m.tensors, with_type("Q2_K")));
  EXPECT_EQ(q2.at("blk.7.attn_v.weight"), Q4_0);
  EXPECT_EQ(q2.at("blk.7.ffn_down.weight"), Q3_K);
  EXPECT_EQ(q2.at("blk.7.attn_q.weight"), Q4_0);  // Q2_K -> Q4_0
  // IQ1_S: IQ1_S falls back to IQ4_NL; attn_v (GQA 3 < 4, no experts) Q2_K -> Q4_0.
  const auto iq1 = types_of(m, plan_quantization(m.metadata, m.tensors, with_type("IQ1_S", true)));
  EXPECT_EQ(iq1.at("blk.7.attn_q.weight"), IQ4_NL);
  EXPECT_EQ(iq1.at("blk.7.attn_v.weight"), Q4_0);
  EXPECT_EQ(iq1.at("blk.7.ffn_down.weight"), IQ1_S);
  EXPECT_EQ(iq1.at("blk.2.ffn_down.weight"), Q2_K);  // below 30/8
  // Q8_0 has no fallback in llama-quantize: the 48-long rows stop it, as they stop llama-quantize.
  EXPECT_THROW(plan_quantization(m.metadata, m.tensors, with_type("Q8_0")), Error);
}

// Flux-style tensors under an architecture llama.cpp does not know.
Model diffusion_model(const char* arch) {
  Model m;
  if (arch) m.arch(arch);
  m.add("double_blocks.0.img_attn.qkv.weight", {3072, 9216}, BF16);
  m.add("double_blocks.0.img_attn.qkv.bias", {9216}, BF16);
  m.add("double_blocks.0.img_attn.norm.query_norm.scale", {128}, BF16);
  m.add("img_in.weight", {64, 3072}, BF16);
  m.add("guidance_in.in_layer.weight", {16, 64}, BF16);                 // 1024 elements
  m.add("guidance_in.out_layer.weight", {16, 65}, BF16);                // 1040 elements, rows of 16
  m.add("input_blocks.1.0.in_layers.2.weight", {3, 3, 320, 320}, F16);  // a conv kernel
  m.add("blk.0.ffn_down.weight", {4096, 4096}, F32);                    // a llama-like name means nothing here
  m.add("final_layer.linear.weight", {3072, 64}, BF16);
  return m;
}

TEST(QuantizePlan, UnknownArchitectureAgnosticRule) {
  for (const char* arch : {"flux", static_cast<const char*>(nullptr)}) {
    const Model m = diffusion_model(arch);
    const QuantizePlan plan = plan_quantization(m.metadata, m.tensors, with_type("Q4_K_M"));
    EXPECT_FALSE(plan.architecture_known);
    EXPECT_EQ(plan.file_type, 15u);
    const auto got = types_of(m, plan);
    EXPECT_EQ(got.at("double_blocks.0.img_attn.qkv.weight"), Q4_K);
    EXPECT_EQ(got.at("double_blocks.0.img_attn.qkv.bias"), BF16);  // 1-D
    EXPECT_EQ(got.at("double_blocks.0.img_attn.norm.query_norm.scale"), BF16);
    EXPECT_EQ(got.at("img_in.weight"), Q5_0);                       // 64: Q4_K -> Q5_0
    EXPECT_EQ(got.at("guidance_in.in_layer.weight"), BF16);         // small
    EXPECT_EQ(got.at("guidance_in.out_layer.weight"), F16);         // 16: Q5_0 does not fit either
    EXPECT_EQ(got.at("input_blocks.1.0.in_layers.2.weight"), F16);  // 3: F16, already
    EXPECT_EQ(got.at("blk.0.ffn_down.weight"), Q4_K);               // no llama rules
    EXPECT_EQ(got.at("final_layer.linear.weight"), Q4_K);
    EXPECT_TRUE(plan.tensors[1].copy);
    EXPECT_EQ(plan.tensors[1].reason, "kept: 1-D");
    EXPECT_EQ(plan.tensors[4].reason, "kept: 1024 elements, at most 1024");
  }
  const Model m = diffusion_model("flux");
  // Q8_0 and block types with no llama fallback: F16 where the rows do not fit.
  const auto q8 = types_of(m, plan_quantization(m.metadata, m.tensors, with_type("Q8_0")));
  EXPECT_EQ(q8.at("img_in.weight"), Q8_0);
  EXPECT_EQ(q8.at("input_blocks.1.0.in_layers.2.weight"), F16);
  EXPECT_EQ(q8.at("guidance_in.out_layer.weight"), F16);
  // MXFP4_MOE: no expert tensors here, so Q8_0.
  const auto mx = types_of(m, plan_quantization(m.metadata, m.tensors, with_type("MXFP4_MOE")));
  EXPECT_EQ(mx.at("double_blocks.0.img_attn.qkv.weight"), Q8_0);
  // IQ1_S needs an importance matrix here too.
  EXPECT_THROW(plan_quantization(m.metadata, m.tensors, with_type("IQ1_S")), Error);
}

TEST(QuantizePlan, BlockTypeNamesAndPresetNames) {
  const Model m = llama_dense(8, false);
  // "q4_k" is the block type: every eligible weight gets it, llama-quantize --pure's choice.
  const QuantizePlan q4k = plan_quantization(m.metadata, m.tensors, with_type("q4_k"));
  EXPECT_FALSE(q4k.preset);
  EXPECT_EQ(q4k.file_type, 15u);
  expect_dense(
      m, q4k, 8, [](int, const std::string&) -> std::uint32_t { return Q4_K; }, Q4_K, Q4_K);
  // general.file_type of a block type: the file type llama.cpp's loader names after it, else the
  // preset that starts from it.
  const std::pair<const char*, std::uint32_t> file_types[] = {
      {"q3_k", 12}, {"iq2_s", 28}, {"q8_0", 7}, {"bf16", 32}, {"nvfp4", 39}, {"q1_0", 40}, {"mxfp4", 38}, {"q2_0", 41}};
  for (const auto& [name, file_type] : file_types)
    EXPECT_EQ(plan_quantization(m.metadata, m.tensors, with_type(name, true)).file_type, file_type) << name;
  // "Q4_K" is llama-quantize's alias of the Q4_K_M preset; "q4_k_m" is the preset in any case.
  const QuantizePlan alias = plan_quantization(m.metadata, m.tensors, with_type("Q4_K"));
  EXPECT_TRUE(alias.preset);
  EXPECT_EQ(alias.file_type, 15u);
  EXPECT_EQ(types_of(m, alias).at("output.weight"), Q6_K);
  EXPECT_TRUE(plan_quantization(m.metadata, m.tensors, with_type("q4_k_m")).preset);
  // "F16" is a preset: weights become F16, norms stay F32.
  const QuantizePlan f16 = plan_quantization(m.metadata, m.tensors, with_type("F16"));
  EXPECT_EQ(f16.file_type, 1u);
  expect_dense(
      m, f16, 8, [](int, const std::string&) -> std::uint32_t { return F16; }, F16, F16);
  EXPECT_TRUE(f16.tensors[0].copy);
}

TEST(QuantizePlan, OverridesSkipTheLayerCounter) {
  const Model m = llama_dense(32, false);
  QuantizePlanOptions o = with_type("Q4_K_M");
  o.tensor_types = {{"blk.5.attn_v.weight", Q8_0}, {"blk.*.attn_v.weight", F16}, {"output.weight", Q5_K}};
  o.keep = {"token_embd.*"};
  const QuantizePlan plan = plan_quantization(m.metadata, m.tensors, o);
  const auto got = types_of(m, plan);
  // First match wins: blk.5 is Q8_0, every other attn_v F16 (copied: the source is F16).
  EXPECT_EQ(got.at("blk.5.attn_v.weight"), Q8_0);
  EXPECT_EQ(got.at("blk.6.attn_v.weight"), F16);
  EXPECT_EQ(got.at("output.weight"), Q5_K);
  EXPECT_EQ(got.at("token_embd.weight"), F16);
  for (std::size_t i = 0; i < m.tensors.size(); ++i)
    if (m.tensors[i].name == "token_embd.weight") {
      EXPECT_EQ(plan.tensors[i].reason, "--keep token_embd.*");
    }

  // One override: attn_v of layer 5 is not counted, so layer L > 5 takes use_more_bits(L - 1).
  QuantizePlanOptions one = with_type("Q4_K_M");
  one.tensor_types = {{"blk.5.attn_v.weight", Q8_0}};
  const auto shifted = types_of(m, plan_quantization(m.metadata, m.tensors, one));
  for (int l = 0; l < 32; ++l) {
    if (l == 5) continue;
    const int counted = l < 5 ? l : l - 1;
    EXPECT_EQ(shifted.at(layer_name(l, "attn_v.weight")), more32(counted) ? Q6_K : Q4_K) << l;
    EXPECT_EQ(shifted.at(layer_name(l, "ffn_down.weight")), more32(l) ? Q6_K : Q4_K) << l;
  }
  // Overrides go through the fallbacks too: q6_k on 576-long rows is Q8_0.
  const Model s = small_model();
  QuantizePlanOptions q6 = with_type("Q4_K_M");
  q6.tensor_types = {{"*attn_q.weight", Q6_K}};
  EXPECT_EQ(types_of(s, plan_quantization(s.metadata, s.tensors, q6)).at("blk.3.attn_q.weight"), Q8_0);
}

TEST(QuantizePlan, Refusals) {
  Model m = llama_dense(4, false);
  try {
    plan_quantization(m.metadata, m.tensors, with_type("Q4_K_X"));
    ADD_FAILURE() << "an unknown preset was planned";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("not a block type (see `onnxq formats`) nor a preset (Q1_0, Q2_0, Q4_0,"),
              std::string::npos)
        << e.what();
  }
  // Every preset name plans, in its own spelling.
  const std::vector<std::string> presets = quantize_preset_names();
  EXPECT_EQ(presets.size(), 38u);
  for (const std::string& p : presets)
    EXPECT_TRUE(plan_quantization(m.metadata, m.tensors, with_type(p, true)).preset) << p;
  EXPECT_THROW(plan_quantization(m.metadata, m.tensors, with_type("q8_k")), Error);  // not a weight type
  EXPECT_THROW(plan_quantization(m.metadata, m.tensors, with_type("i32")), Error);
  QuantizePlanOptions bad = with_type("Q4_K_M");
  bad.tensor_types = {{"*", 9}};  // Q8_1
  EXPECT_THROW(plan_quantization(m.metadata, m.tensors, bad), Error);
  bad.tensor_types = {{"*", 1000}};
  EXPECT_THROW(plan_quantization(m.metadata, m.tensors, bad), Error);

  // Importance matrices: IQ2_M names the first tensor (in the input's order) that needs one.
  try {
    plan_quantization(m.metadata, m.tensors, with_type("IQ2_M"));
    ADD_FAILURE() << "IQ2_M without an importance matrix was planned";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_EQ(std::string(e.what()),
              "tensor 'blk.0.attn_k.weight': iq2_s needs an importance matrix (--imatrix), as llama-quantize requires");
  }
  EXPECT_THROW(plan_quantization(m.metadata, m.tensors, with_type("Q2_K_S")), Error);
  EXPECT_THROW(plan_quantization(m.metadata, m.tensors, with_type("IQ3_XXS")), Error);
  EXPECT_NO_THROW(plan_quantization(m.metadata, m.tensors, with_type("Q2_K")));
  EXPECT_NO_THROW(plan_quantization(m.metadata, m.tensors, with_type("IQ3_S")));
  // The token embeddings are exempt from llama's rule but not from ggml's: iq2_xxs needs one.
  QuantizePlanOptions embd = with_type("Q4_K_M");
  embd.tensor_types = {{"token_embd.weight", IQ2_XXS}};
  EXPECT_THROW(plan_quantization(m.metadata, m.tensors, embd), Error);
  embd.tensor_types = {{"token_embd.weight", 18}};  // IQ3_XXS: llama exempts the embeddings, ggml needs none
  EXPECT_NO_THROW(plan_quantization(m.metadata, m.tensors, embd));

  // Already-quantized sources.
  for (PlanInputTensor& t : m.tensors)
    if (t.name == "blk.1.attn_q.weight") t.ggml_type = Q8_0;
  try {
    plan_quantization(m.metadata, m.tensors, with_type("Q4_K_M"));
    ADD_FAILURE() << "a Q8_0 tensor was requantized without allow_requantize";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "tensor 'blk.1.attn_q.weight' is already q8_0; quantizing it again to q4_K needs --allow-requantize");
  }
  QuantizePlanOptions allow = with_type("Q4_K_M");
  allow.allow_requantize = true;
  const QuantizePlan requant = plan_quantization(m.metadata, m.tensors, allow);
  for (std::size_t i = 0; i < m.tensors.size(); ++i)
    if (m.tensors[i].name == "blk.1.attn_q.weight") {
      EXPECT_EQ(requant.tensors[i].from_type, Q8_0);
      EXPECT_EQ(requant.tensors[i].to_type, Q4_K);
      EXPECT_EQ(requant.tensors[i].bytes_before, 4096u * 4096 / 32 * 34);
    }
  // A tensor already of the planned type is copied, with no need to allow anything.
  const QuantizePlan same = plan_quantization(m.metadata, m.tensors, with_type("Q8_0"));
  for (std::size_t i = 0; i < m.tensors.size(); ++i)
    if (m.tensors[i].name == "blk.1.attn_q.weight") {
      EXPECT_TRUE(same.tensors[i].copy);
      EXPECT_EQ(same.tensors[i].reason, "Q8_0; already q8_0");
    }
}

}  // namespace
}  // namespace onnxq
