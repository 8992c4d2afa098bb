#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "onnxq/formats/format.hpp"

namespace onnxq {
namespace {

constexpr DType kBlock = DType::Undefined;

// Spec §1 (ggml type, QK, block size) and the GGUF plain types.
constexpr std::array kFormats = {
    BlockFormat{2, "q4_0", "Q4_0", "gguf:q4_0", 32, 18, kBlock},
    BlockFormat{3, "q4_1", "Q4_1", "gguf:q4_1", 32, 20, kBlock},
    BlockFormat{6, "q5_0", "Q5_0", "gguf:q5_0", 32, 22, kBlock},
    BlockFormat{7, "q5_1", "Q5_1", "gguf:q5_1", 32, 24, kBlock},
    BlockFormat{8, "q8_0", "Q8_0", "gguf:q8_0", 32, 34, kBlock},
    BlockFormat{9, "q8_1", "Q8_1", "gguf:q8_1", 32, 36, kBlock},
    BlockFormat{10, "q2_K", "Q2_K", "gguf:q2_k", 256, 84, kBlock},
    BlockFormat{11, "q3_K", "Q3_K", "gguf:q3_k", 256, 110, kBlock},
    BlockFormat{12, "q4_K", "Q4_K", "gguf:q4_k", 256, 144, kBlock},
    BlockFormat{13, "q5_K", "Q5_K", "gguf:q5_k", 256, 176, kBlock},
    BlockFormat{14, "q6_K", "Q6_K", "gguf:q6_k", 256, 210, kBlock},
    BlockFormat{15, "q8_K", "Q8_K", "gguf:q8_k", 256, 292, kBlock},
    BlockFormat{16, "iq2_xxs", "IQ2_XXS", "gguf:iq2_xxs", 256, 66, kBlock},
    BlockFormat{17, "iq2_xs", "IQ2_XS", "gguf:iq2_xs", 256, 74, kBlock},
    BlockFormat{18, "iq3_xxs", "IQ3_XXS", "gguf:iq3_xxs", 256, 98, kBlock},
    BlockFormat{19, "iq1_s", "IQ1_S", "gguf:iq1_s", 256, 50, kBlock},
    BlockFormat{20, "iq4_nl", "IQ4_NL", "gguf:iq4_nl", 32, 18, kBlock},
    BlockFormat{21, "iq3_s", "IQ3_S", "gguf:iq3_s", 256, 110, kBlock},
    BlockFormat{22, "iq2_s", "IQ2_S", "gguf:iq2_s", 256, 82, kBlock},
    BlockFormat{23, "iq4_xs", "IQ4_XS", "gguf:iq4_xs", 256, 136, kBlock},
    BlockFormat{29, "iq1_m", "IQ1_M", "gguf:iq1_m", 256, 56, kBlock},
    BlockFormat{34, "tq1_0", "TQ1_0", "gguf:tq1_0", 256, 54, kBlock},
    BlockFormat{35, "tq2_0", "TQ2_0", "gguf:tq2_0", 256, 66, kBlock},
    BlockFormat{39, "mxfp4", "MXFP4", "gguf:mxfp4", 32, 17, kBlock},
    BlockFormat{40, "nvfp4", "NVFP4", "gguf:nvfp4", 64, 36, kBlock},
    BlockFormat{41, "q1_0", "Q1_0", "gguf:q1_0", 128, 18, kBlock},
    BlockFormat{42, "q2_0", "Q2_0", "gguf:q2_0", 64, 18, kBlock},
    BlockFormat{0, "f32", "F32", "", 1, 4, DType::Float},
    BlockFormat{1, "f16", "F16", "", 1, 2, DType::Float16},
    BlockFormat{30, "bf16", "BF16", "", 1, 2, DType::BFloat16},
    BlockFormat{28, "f64", "F64", "", 1, 8, DType::Double},
    BlockFormat{24, "i8", "I8", "", 1, 1, DType::Int8},
    BlockFormat{25, "i16", "I16", "", 1, 2, DType::Int16},
    BlockFormat{26, "i32", "I32", "", 1, 4, DType::Int32},
    BlockFormat{27, "i64", "I64", "", 1, 8, DType::Int64},
};
constexpr std::size_t kBlockFormatCount = 27;
static_assert(kFormats[kBlockFormatCount - 1].plain_dtype == kBlock && kFormats[kBlockFormatCount].plain_dtype != kBlock);

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

}  // namespace

std::span<const BlockFormat> all_formats() { return kFormats; }
std::span<const BlockFormat> block_formats() { return std::span<const BlockFormat>(kFormats).first(kBlockFormatCount); }

const BlockFormat* find_format_by_ggml_type(std::uint32_t ggml_type) {
  for (const auto& f : kFormats)
    if (f.ggml_type == ggml_type) return &f;
  return nullptr;
}

const BlockFormat* find_format(std::string_view name) {
  std::string wanted = lower(name);
  if (wanted.starts_with("gguf:")) wanted.erase(0, 5);
  for (const auto& f : kFormats)
    if (wanted == lower(f.ggml_name)) return &f;
  return nullptr;
}

bool is_removed_ggml_type(std::uint32_t t) { return t == 4 || t == 5 || (t >= 31 && t <= 33) || (t >= 36 && t <= 38); }

}  // namespace onnxq
