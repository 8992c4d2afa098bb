#include "llama_rules.hpp"

#include <algorithm>
#include <array>

#include "onnxq/core/error.hpp"
#include "onnxq/formats/format.hpp"

namespace onnxq::convert_detail {
namespace {

using F = Ftype;

// llama-arch.cpp's LLM_ARCH_NAMES (read at 00395eb285c7, the stored version nearest to
// 007dbbf3fd17) and bailingmoe3, which 007dbbf3fd17's llama-quant.cpp names. "clip" is the
// dummy architecture llama-quantize uses for multimodal projectors.
constexpr std::string_view kKnownArchitectures[] = {
    "clip",
    "llama",
    "llama4",
    "deci",
    "falcon",
    "grok",
    "gpt2",
    "gptj",
    "gptneox",
    "mpt",
    "baichuan",
    "starcoder",
    "refact",
    "bert",
    "modern-bert",
    "nomic-bert",
    "nomic-bert-moe",
    "neo-bert",
    "jina-bert-v2",
    "jina-bert-v3",
    "eurobert",
    "bloom",
    "stablelm",
    "qwen",
    "qwen2",
    "qwen2moe",
    "qwen2vl",
    "qwen3",
    "qwen3moe",
    "qwen3next",
    "qwen3vl",
    "qwen3vlmoe",
    "qwen35",
    "qwen35moe",
    "phi2",
    "phi3",
    "phimoe",
    "plamo",
    "plamo2",
    "plamo3",
    "codeshell",
    "orion",
    "internlm2",
    "minicpm",
    "minicpm3",
    "gemma",
    "gemma2",
    "gemma3",
    "gemma3n",
    "gemma4",
    "gemma4-assistant",
    "gemma-embedding",
    "starcoder2",
    "mamba",
    "mamba2",
    "jamba",
    "falcon-h1",
    "xverse",
    "command-r",
    "cohere2",
    "cohere2moe",
    "dbrx",
    "olmo",
    "olmo2",
    "olmoe",
    "openelm",
    "arctic",
    "deepseek",
    "deepseek2",
    "deepseek2-ocr",
    "deepseek32",
    "deepseek4",
    "chatglm",
    "glm4",
    "glm4moe",
    "glm-dsa",
    "bitnet",
    "t5",
    "t5encoder",
    "jais",
    "jais2",
    "nemotron",
    "nemotron_h",
    "nemotron_h_moe",
    "exaone",
    "exaone4",
    "exaone-moe",
    "rwkv6",
    "rwkv6qwen2",
    "rwkv7",
    "arwkv7",
    "granite",
    "granitemoe",
    "granitehybrid",
    "chameleon",
    "wavtokenizer-dec",
    "plm",
    "bailingmoe",
    "bailingmoe2",
    "bailingmoe3",
    "dots1",
    "arcee",
    "afmoe",
    "laguna",
    "ernie4_5",
    "ernie4_5-moe",
    "hunyuan-moe",
    "hunyuan-dense",
    "hunyuan_vl",
    "hy_v3",
    "smollm3",
    "gpt-oss",
    "lfm2",
    "lfm2moe",
    "dream",
    "smallthinker",
    "llada",
    "llada-moe",
    "seed_oss",
    "grovemoe",
    "apertus",
    "minimax-m2",
    "cogvlm",
    "rnd1",
    "pangu-embedded",
    "mistral3",
    "eagle3",
    "dflash",
    "mistral4",
    "paddleocr",
    "mimo2",
    "step35",
    "llama-embed",
    "maincoder",
    "kimi-linear",
    "talkie",
    "mellum",
};

// Layer 0's value of a key that is a number or an array of numbers per layer (get_key_or_arr).
std::optional<std::uint64_t> first_number(const GgufMetadata& metadata, const std::string& key) {
  const GgufOwnedValue* v = metadata.find(key);
  if (!v) return std::nullopt;
  if (v->type() == GgufType::Array) {
    if (v->elements().empty()) return std::nullopt;
    v = &v->elements().front();
  }
  switch (v->type()) {
    case GgufType::UInt8:
    case GgufType::UInt16:
    case GgufType::UInt32:
    case GgufType::UInt64: return v->raw_bits();
    case GgufType::Int8:
    case GgufType::Int16:
    case GgufType::Int32:
    case GgufType::Int64: {
      // Sign-extend from the stored width; a negative count counts as none.
      const int bits = v->type() == GgufType::Int8    ? 8
                       : v->type() == GgufType::Int16 ? 16
                       : v->type() == GgufType::Int32 ? 32
                                                      : 64;
      const std::uint64_t raw = v->raw_bits();
      const bool negative = (raw >> (bits - 1)) & 1;
      return negative ? 0 : raw;
    }
    default: return std::nullopt;
  }
}

std::uint32_t as_u32(std::optional<std::uint64_t> v) {
  return v ? static_cast<std::uint32_t>(std::min<std::uint64_t>(*v, 0xffffffffu)) : 0;
}

// The architectures whose load_hparams sets LLM_TYPE_70B, the only model type the rules test.
bool loader_says_70b(std::string_view arch, std::uint32_t n_layer, std::uint32_t n_head, std::uint32_t n_head_kv,
                     std::uint32_t n_expert) {
  if (arch == "llama") return n_expert != 8 && n_layer == 80 && n_head != n_head_kv;  // else 65B (or 8x..B)
  if (arch == "deci" || arch == "qwen2" || arch == "olmoe") return n_layer == 80;
  if (arch == "jais2") return n_layer == 68;
  return false;
}

bool contains(std::string_view name, std::string_view part) { return name.find(part) != std::string_view::npos; }

std::uint32_t block_of(std::uint32_t type) {
  const BlockFormat* f = find_format_by_ggml_type(type);
  return f ? f->block_elements : 1;
}

bool use_more_bits(int i_layer, int n_layers) {
  return i_layer < n_layers / 8 || i_layer >= 7 * n_layers / 8 || (i_layer - n_layers / 8) % 3 == 2;
}

// Substrings whose tensors llama-quantize never quantizes, in its order, with the reason shown.
constexpr std::pair<std::string_view, std::string_view> kExcludedParts[] = {
    {"_norm.weight", "a norm"},
    {"ffn_gate_inp.weight", "an expert router"},
    {"ffn_gate_tid2eid.weight", "a routing table"},
    {"altup", "small (altup)"},
    {"laurel", "small (laurel)"},
    {"per_layer_model_proj", "small (per_layer_model_proj)"},
    {"ssm_conv1d", "a conv1d"},
    {"shortconv.conv.weight", "a conv1d"},
    {"indexer.k_proj.weight", "small (indexer)"},
    {"indexer.q_proj.weight", "small (indexer)"},
    {"time_mix_first.weight", "small (RWKV)"},
    {"time_mix_w0.weight", "small (RWKV)"},
    {"time_mix_w1.weight", "small (RWKV)"},
    {"time_mix_w2.weight", "small (RWKV)"},
    {"time_mix_v0.weight", "small (RWKV)"},
    {"time_mix_v1.weight", "small (RWKV)"},
    {"time_mix_v2.weight", "small (RWKV)"},
    {"time_mix_a0.weight", "small (RWKV)"},
    {"time_mix_a1.weight", "small (RWKV)"},
    {"time_mix_a2.weight", "small (RWKV)"},
    {"time_mix_g1.weight", "small (RWKV)"},
    {"time_mix_g2.weight", "small (RWKV)"},
    {"time_mix_decay_w1.weight", "small (RWKV)"},
    {"time_mix_decay_w2.weight", "small (RWKV)"},
    {"time_mix_lerp_fused.weight", "small (RWKV)"},
    {"attn_rel_b.weight", "a relative position bias"},
    {".position_embd", "a position embedding"},
    {"sam.pos_embd", "a position embedding"},
    {"sam.neck.", "a vision tensor (sam.neck)"},
    {"sam.net_", "a vision tensor (sam.net)"},
    {".rel_pos", "a position embedding"},
    {".patch_embd", "a patch embedding"},
    {".patch_merger", "a patch merger"},
    {"a.rvq.codebook", "an audio codebook"},
    {"mm.a.code_embd", "an audio codebook"},
};

}  // namespace

ModelFacts read_model_facts(const GgufMetadata& metadata) {
  ModelFacts m;
  const GgufOwnedValue* arch = metadata.find("general.architecture");
  if (!arch || arch->type() != GgufType::String) return m;
  m.architecture = arch->text();
  m.known = std::find(std::begin(kKnownArchitectures), std::end(kKnownArchitectures), m.architecture) !=
            std::end(kKnownArchitectures);
  const std::string& a = m.architecture;
  m.n_layer = as_u32(first_number(metadata, a + ".block_count"));
  m.n_expert = as_u32(first_number(metadata, a + ".expert_count"));
  const std::uint32_t n_head = as_u32(first_number(metadata, a + ".attention.head_count"));
  const std::optional<std::uint64_t> kv = first_number(metadata, a + ".attention.head_count_kv");
  const std::uint32_t n_head_kv = kv ? as_u32(kv) : n_head;  // optional: defaults to head_count
  m.n_gqa = n_head_kv == 0 ? 0 : n_head / n_head_kv;
  m.is_70b = loader_says_70b(a, m.n_layer, n_head, n_head_kv, m.n_expert);
  m.falcon = a == "falcon";
  m.bailingmoe3 = a == "bailingmoe3";
  return m;
}

int tensor_dims(std::span<const std::uint64_t> ne) {
  int dims = static_cast<int>(ne.size());
  while (dims > 1 && ne[dims - 1] <= 1) --dims;  // ggml counts dimensions above 1
  return std::max(dims, 1);
}

std::optional<std::string> llama_exclusion(std::string_view name, std::span<const std::uint64_t> ne) {
  if (tensor_dims(ne) < 2) return std::string("1-D");
  // llama.cpp tests `rfind("weight") == size() - 6`, which a name of exactly 5 characters also
  // passes (npos equals 5 - 6 wrapped around).
  if (name.size() != 5 && (name.size() < 6 || name.substr(name.size() - 6) != "weight"))
    return std::string("not a weight");
  for (const auto& [part, why] : kExcludedParts)
    if (contains(name, part)) return std::string(why);
  // LLM_TN's names for these two are the same for every architecture.
  if (name == "position_embd.weight") return std::string("a position embedding");
  if (name == "token_types.weight") return std::string("token types");
  return std::nullopt;
}

Category tensor_category(std::string_view name) {
  if (name == "output.weight") return Category::Output;
  if (name == "token_embd.weight" || name == "per_layer_token_embd.weight") return Category::TokenEmbd;
  if (contains(name, "attn_qkv.weight")) return Category::AttnQkv;
  if (contains(name, "attn_kv_b.weight")) return Category::AttnKvB;
  if (contains(name, "attn_v.weight")) return Category::AttnV;
  if (contains(name, "attn_k.weight")) return Category::AttnK;
  if (contains(name, "attn_q.weight")) return Category::AttnQ;
  if (contains(name, "attn_output.weight")) return Category::AttnOutput;
  if (contains(name, "ffn_up")) return Category::FfnUp;
  if (contains(name, "ffn_gate")) return Category::FfnGate;
  if (contains(name, "ffn_down")) return Category::FfnDown;
  return Category::Other;
}

bool category_is_attn_v(Category c) { return c == Category::AttnV || c == Category::AttnQkv || c == Category::AttnKvB; }

namespace {

// layer_info: in an expert model the layer is the name's blk.N (experts are not stored in layer
// order); otherwise the counter of tensors of that kind visited so far.
int layer_of(const ModelFacts& model, int counter, int n_layer, std::string_view name) {
  if (std::max<std::uint32_t>(1, model.n_expert) <= 1) return counter;
  constexpr std::string_view prefix = "blk.";
  std::size_t i = prefix.size();
  std::int64_t layer = 0;
  const bool digits = name.substr(0, prefix.size()) == prefix && i < name.size() && name[i] >= '0' && name[i] <= '9';
  while (digits && i < name.size() && name[i] >= '0' && name[i] <= '9' && layer <= 0x7fffffff)
    layer = layer * 10 + (name[i++] - '0');
  if (!digits) invalid_input("tensor '" + std::string(name) + "': no layer number (blk.N.) in an expert model's name");
  if (layer >= n_layer)
    invalid_input("tensor '" + std::string(name) + "': layer " + std::to_string(layer) + " is not below block_count " +
                  std::to_string(n_layer));
  return static_cast<int>(layer);
}

bool is_any(F f, std::initializer_list<F> set) { return std::find(set.begin(), set.end(), f) != set.end(); }

}  // namespace

RuleChoice llama_rule_type(RuleState& s, const ModelFacts& model, F ftype, std::uint32_t default_type,
                           std::string_view name, std::span<const std::uint64_t> ne, Category category) {
  using namespace ggml;
  std::uint32_t t = default_type;
  const auto chose = [&](std::string_view rule) {
    return RuleChoice{t, t == default_type ? std::string_view() : rule};
  };
  const bool very_low_iq = is_any(ftype, {F::IQ2_XXS, F::IQ2_XS, F::IQ1_S, F::IQ2_S, F::IQ2_M, F::IQ1_M});
  const bool iq2s_or_m = ftype == F::IQ2_S || ftype == F::IQ2_M;
  const std::uint32_t gqa = model.n_gqa;
  const std::uint32_t n_expert = model.n_expert;

  if (category == Category::Output || (s.has_tied_embeddings && category == Category::TokenEmbd)) {
    const std::uint64_t nx = ne.empty() ? 1 : ne[0];
    if (ftype == F::MXFP4_MOE)
      t = Q8_0;
    else if (model.falcon || nx % block_of(t) != 0)
      t = Q8_0;
    else if (is_any(ftype, {F::IQ2_XXS, F::IQ2_XS, F::IQ3_XXS, F::IQ1_S, F::IQ2_S, F::IQ2_M, F::IQ1_M}))
      t = Q5_K;
    else if (t != Q8_0)
      t = Q6_K;
    return chose(category == Category::Output ? "output" : "tied token_embd");
  }
  if (ftype == F::MXFP4_MOE) {
    // Expert tensors (3-D, several experts) to MXFP4, the rest to Q8_0; bailingmoe3's MLA
    // projections are 3-D too, so there only the ffn tensors count.
    const bool ffn = category == Category::FfnUp || category == Category::FfnGate || category == Category::FfnDown;
    const std::uint64_t experts = ne.size() > 2 ? ne[2] : 1;
    t = experts > 1 && (!model.bailingmoe3 || ffn) ? MXFP4 : Q8_0;
    return chose("MXFP4_MOE: non-expert");
  }
  if (category == Category::TokenEmbd) {
    if (is_any(ftype, {F::IQ2_XXS, F::IQ2_XS, F::IQ1_S, F::IQ1_M}))
      t = Q2_K;
    else if (iq2s_or_m || ftype == F::IQ3_XXS)
      t = IQ3_S;
    else if (is_any(ftype, {F::TQ1_0, F::TQ2_0, F::Q2_0}))
      t = Q4_K;
    return chose("token_embd");
  }
  if (very_low_iq) {
    if (category_is_attn_v(category)) {
      if (gqa >= 4 || n_expert >= 4)
        t = Q4_K;
      else
        t = iq2s_or_m ? IQ3_S : Q2_K;
      ++s.i_attention_wv;
      return chose("attn_v");
    }
    if (n_expert == 8 && category == Category::AttnK) {
      t = Q4_K;
      return chose("attn_k, 8 experts");
    }
    if (category == Category::FfnDown) {
      if (s.i_ffn_down < s.n_ffn / 8) t = iq2s_or_m ? IQ3_S : Q2_K;
      ++s.i_ffn_down;
      return chose("ffn_down, first eighth");
    }
    if (category == Category::AttnOutput) {
      if (n_expert == 8)
        t = Q5_K;
      else if (ftype == F::IQ1_S || ftype == F::IQ1_M)
        t = IQ2_XXS;
      else if (iq2s_or_m)
        t = IQ3_S;
      return chose("attn_output");
    }
    return chose("");
  }
  if (category_is_attn_v(category)) {
    std::string_view rule = "attn_v";
    if (ftype == F::Q2_K)
      t = gqa >= 4 ? Q4_K : Q3_K;
    else if (ftype == F::Q2_K_S && gqa >= 4)
      t = Q4_K;
    else if (ftype == F::IQ3_XXS)
      t = gqa >= 4 ? Q4_K : !s.has_imatrix ? IQ3_S : IQ3_XXS;
    else if ((ftype == F::IQ3_XS || ftype == F::IQ3_S) && gqa >= 4)
      t = Q4_K;
    else if (ftype == F::IQ3_M)
      t = Q4_K;
    else if (ftype == F::Q3_K_M)
      t = s.i_attention_wv < 2 ? Q5_K : Q4_K;
    else if (ftype == F::Q3_K_L)
      t = Q5_K;
    else if ((ftype == F::IQ4_NL || ftype == F::IQ4_XS) && gqa >= 4)
      t = Q5_K;
    else if ((ftype == F::Q4_K_M || ftype == F::Q5_K_M) && use_more_bits(s.i_attention_wv, s.n_attention_wv))
      t = Q6_K, rule = "attn_v, use_more_bits";
    else if (ftype == F::Q4_K_S && s.i_attention_wv < 4)
      t = Q5_K, rule = "attn_v, first 4";
    if (model.is_70b && (t == Q3_K || t == Q4_K)) t = Q5_K, rule = "attn_v, 70B";
    if (n_expert == 8) t = Q8_0, rule = "attn_v, 8 experts";
    ++s.i_attention_wv;
    return chose(rule);
  }
  if (category == Category::AttnK) {
    if (n_expert == 8)
      t = Q8_0;
    else if (ftype == F::IQ3_XS)
      t = IQ3_XXS;
    else if (ftype == F::IQ3_XXS)
      t = IQ2_S;
    return chose("attn_k");
  }
  if (category == Category::AttnQ) {
    if (ftype == F::IQ3_XS)
      t = IQ3_XXS;
    else if (ftype == F::IQ3_XXS)
      t = IQ2_S;
    return chose("attn_q");
  }
  if (category == Category::FfnDown) {
    const int i = layer_of(model, s.i_ffn_down, s.n_ffn, name), n = s.n_ffn;
    std::string_view rule = "ffn_down";
    if (ftype == F::Q2_K)
      t = Q3_K;
    else if (ftype == F::Q2_K_S) {
      if (i < n / 8) t = Q4_K, rule = "ffn_down, first eighth";
    } else if (ftype == F::IQ3_XXS && !s.has_imatrix)
      t = i < n / 8 ? Q4_K : Q3_K;
    else if (ftype == F::Q3_K_M)
      t = i < n / 16 ? Q5_K : !model.falcon || use_more_bits(i, n) ? Q4_K : Q3_K;
    else if (ftype == F::IQ3_M && (i < n / 8 || (n_expert == 8 && use_more_bits(i, n))))
      t = Q4_K;
    else if (ftype == F::Q3_K_L)
      t = model.falcon ? Q4_K : Q5_K;
    else if (ftype == F::Q4_K_M) {
      if (model.falcon)
        t = i < n / 16 ? Q6_K : use_more_bits(i, n) ? Q5_K : Q4_K;
      else if (use_more_bits(i, n))
        t = Q6_K, rule = "ffn_down, use_more_bits";
    } else if (i < n / 8 && (ftype == F::IQ4_NL || ftype == F::IQ4_XS) && !s.has_imatrix)
      t = Q5_K;
    else if (ftype == F::Q5_K_M && use_more_bits(i, n))
      t = Q6_K, rule = "ffn_down, use_more_bits";
    else if (ftype == F::Q4_K_S && !model.falcon && i < n / 8)
      t = Q5_K, rule = "ffn_down, first eighth";
    else if ((ftype == F::Q4_0 || ftype == F::Q5_0) && s.has_imatrix && i < n / 8)
      t = ftype == F::Q4_0 ? Q4_1 : Q5_1;
    ++s.i_ffn_down;
    return chose(rule);
  }
  if (category == Category::AttnOutput) {
    if (!model.falcon) {
      if (n_expert == 8) {
        if (is_any(ftype, {F::Q2_K, F::IQ3_XS, F::IQ3_XXS, F::Q3_K_S, F::Q3_K_M, F::IQ4_NL, F::Q4_K_S, F::Q4_K_M,
                           F::IQ3_S, F::IQ3_M, F::IQ4_XS}))
          t = Q5_K;
      } else {
        if (ftype == F::Q2_K)
          t = Q3_K;
        else if (ftype == F::IQ3_XXS)
          t = IQ3_S;
        else if (ftype == F::Q3_K_M)
          t = Q4_K;
        else if (ftype == F::Q3_K_L)
          t = Q5_K;
        else if (ftype == F::IQ3_M)
          t = Q4_K;
      }
    } else if (ftype == F::Q3_K_L) {
      t = Q4_K;
    }
    return chose("attn_output");
  }
  // llama.cpp has an attn_qkv branch here, never reached: attn_qkv takes the attn_v rules above.
  if (category == Category::FfnGate || category == Category::FfnUp) {
    int& counter = category == Category::FfnGate ? s.i_ffn_gate : s.i_ffn_up;
    const int i = layer_of(model, counter, s.n_ffn, name), n = s.n_ffn;
    if (ftype == F::IQ3_XS && i >= n / 8 && i < 7 * n / 8) t = IQ3_XXS;
    ++counter;
    return chose(category == Category::FfnGate ? "ffn_gate" : "ffn_up");
  }
  return chose("");
}

std::optional<std::uint32_t> llama_fallback(std::uint32_t type, std::uint64_t row_length) {
  using namespace ggml;
  if (row_length % block_of(type) == 0) return type;
  std::uint32_t to;
  switch (type) {
    case IQ1_S:
    case IQ1_M:
    case IQ2_XXS:
    case IQ2_XS:
    case IQ2_S:
    case IQ3_XXS:
    case IQ3_S:
    case IQ4_XS: to = IQ4_NL; break;
    case Q2_0:
    case Q2_K:
    case Q3_K:
    case TQ1_0:
    case TQ2_0: to = Q4_0; break;
    case Q4_K: to = Q5_0; break;
    case Q5_K: to = Q5_1; break;
    case Q6_K: to = Q8_0; break;
    default: return std::nullopt;
  }
  return row_length % block_of(to) == 0 ? to : F16;
}

bool llama_requires_imatrix(std::string_view name, std::uint32_t type, Ftype ftype) {
  using namespace ggml;
  if (name == "token_embd.weight" || name == "per_layer_token_embd.weight" || name == "output.weight") return false;
  switch (type) {
    case IQ3_XXS:
    case IQ2_XXS:
    case IQ2_XS:
    case IQ2_S:
    case IQ1_M:
    case IQ1_S: return true;
    case Q2_K: return ftype == F::Q2_K_S;  // the one K-quant mix that needs one
    default: return false;
  }
}

}  // namespace onnxq::convert_detail
