#include "llama_presets.hpp"

#include <cctype>

#include "onnxq/model/file_type.hpp"

namespace onnxq::convert_detail {
namespace {

using F = Ftype;

// QUANT_OPTIONS without COPY (onnxq has --keep instead), in llama-quantize's order. The three
// aliases name the _M mixes, as llama-quantize's usage says.
constexpr Preset kPresets[] = {
    {"Q1_0", F::Q1_0},           {"Q2_0", F::Q2_0},       {"Q4_0", F::Q4_0},     {"Q4_1", F::Q4_1},
    {"MXFP4_MOE", F::MXFP4_MOE}, {"Q5_0", F::Q5_0},       {"Q5_1", F::Q5_1},     {"IQ2_XXS", F::IQ2_XXS},
    {"IQ2_XS", F::IQ2_XS},       {"IQ2_S", F::IQ2_S},     {"IQ2_M", F::IQ2_M},   {"IQ1_S", F::IQ1_S},
    {"IQ1_M", F::IQ1_M},         {"TQ1_0", F::TQ1_0},     {"TQ2_0", F::TQ2_0},   {"Q2_K", F::Q2_K},
    {"Q2_K_S", F::Q2_K_S},       {"IQ3_XXS", F::IQ3_XXS}, {"IQ3_S", F::IQ3_S},   {"IQ3_M", F::IQ3_M},
    {"Q3_K", F::Q3_K_M},         {"IQ3_XS", F::IQ3_XS},   {"Q3_K_S", F::Q3_K_S}, {"Q3_K_M", F::Q3_K_M},
    {"Q3_K_L", F::Q3_K_L},       {"IQ4_NL", F::IQ4_NL},   {"IQ4_XS", F::IQ4_XS}, {"Q4_K", F::Q4_K_M},
    {"Q4_K_S", F::Q4_K_S},       {"Q4_K_M", F::Q4_K_M},   {"Q5_K", F::Q5_K_M},   {"Q5_K_S", F::Q5_K_S},
    {"Q5_K_M", F::Q5_K_M},       {"Q6_K", F::Q6_K},       {"Q8_0", F::Q8_0},     {"F16", F::F16},
    {"BF16", F::BF16},           {"F32", F::ALL_F32},
};

bool same_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::toupper(static_cast<unsigned char>(a[i])) != std::toupper(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

}  // namespace

std::optional<Preset> find_preset(std::string_view name, bool ignore_case) {
  for (const Preset& p : kPresets)
    if (ignore_case ? same_ignoring_case(p.name, name) : p.name == name) return p;
  return std::nullopt;
}

std::uint32_t preset_default_type(Ftype ftype) {
  switch (ftype) {
    case F::Q4_0: return ggml::Q4_0;
    case F::Q4_1: return ggml::Q4_1;
    case F::Q5_0: return ggml::Q5_0;
    case F::Q5_1: return ggml::Q5_1;
    case F::Q8_0: return ggml::Q8_0;
    case F::F16: return ggml::F16;
    case F::BF16: return ggml::BF16;
    case F::ALL_F32: return ggml::F32;
    case F::Q1_0: return ggml::Q1_0;
    case F::Q2_0: return ggml::Q2_0;
    case F::MXFP4_MOE: return ggml::MXFP4;
    case F::NVFP4: return ggml::NVFP4;
    case F::Q2_K_S:
    case F::Q2_K: return ggml::Q2_K;
    case F::IQ3_XS: return ggml::IQ3_S;
    case F::Q3_K_S:
    case F::Q3_K_M:
    case F::Q3_K_L: return ggml::Q3_K;
    case F::Q4_K_S:
    case F::Q4_K_M: return ggml::Q4_K;
    case F::Q5_K_S:
    case F::Q5_K_M: return ggml::Q5_K;
    case F::Q6_K: return ggml::Q6_K;
    case F::TQ1_0: return ggml::TQ1_0;
    case F::TQ2_0: return ggml::TQ2_0;
    case F::IQ2_XXS: return ggml::IQ2_XXS;
    case F::IQ2_XS: return ggml::IQ2_XS;
    case F::IQ2_S: return ggml::IQ2_XS;  // sic: IQ2_S mixes start from IQ2_XS
    case F::IQ2_M: return ggml::IQ2_S;
    case F::IQ3_XXS: return ggml::IQ3_XXS;
    case F::IQ1_S: return ggml::IQ1_S;
    case F::IQ1_M: return ggml::IQ1_M;
    case F::IQ4_NL: return ggml::IQ4_NL;
    case F::IQ4_XS: return ggml::IQ4_XS;
    case F::IQ3_S:
    case F::IQ3_M: return ggml::IQ3_S;
  }
  return ggml::F32;
}

std::optional<Ftype> file_type_of_type(std::uint32_t ggml_type) {
  // The loader's guess for a model whose tensors are all of that type (model/file_type.cpp holds
  // that mapping); it has none for the types only a preset names (MXFP4, Q2_0).
  TensorInfo one{};
  one.ggml_type = ggml_type;
  const std::uint32_t guess = guess_llama_file_type({&one, 1}) & ~kLlamaFileTypeGuessed;
  if (guess != static_cast<std::uint32_t>(F::ALL_F32) || ggml_type == ggml::F32) return static_cast<Ftype>(guess);
  for (const Preset& p : kPresets)
    if (preset_default_type(p.ftype) == ggml_type) return p.ftype;
  return std::nullopt;
}

std::vector<std::string_view> preset_names() {
  std::vector<std::string_view> names;
  for (const Preset& p : kPresets) names.push_back(p.name);
  return names;
}

}  // namespace onnxq::convert_detail
