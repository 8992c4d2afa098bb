// llama-quantize's presets (tools/quantize/quantize.cpp's QUANT_OPTIONS) and llama.cpp's file
// types (enum llama_ftype, the value of general.file_type) with the tensor type each one starts
// from (llama_ftype_get_default_type in src/llama-quant.cpp, commit 007dbbf3fd17).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace onnxq::convert_detail {

// ggml's type numbers that llama.cpp's rules name. The format table holds the same numbers
// (tests/unit/convert/quantize_plan_test.cpp checks each against it); these are the rules' words.
namespace ggml {
inline constexpr std::uint32_t F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q5_0 = 6, Q5_1 = 7, Q8_0 = 8, Q8_1 = 9, Q2_K = 10,
                               Q3_K = 11, Q4_K = 12, Q5_K = 13, Q6_K = 14, Q8_K = 15, IQ2_XXS = 16, IQ2_XS = 17,
                               IQ3_XXS = 18, IQ1_S = 19, IQ4_NL = 20, IQ3_S = 21, IQ2_S = 22, IQ4_XS = 23, IQ1_M = 29,
                               BF16 = 30, TQ1_0 = 34, TQ2_0 = 35, MXFP4 = 39, NVFP4 = 40, Q1_0 = 41, Q2_0 = 42;
}  // namespace ggml

// llama.h's enum llama_ftype, the values the rules test.
enum class Ftype : std::uint32_t {
  ALL_F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q8_0 = 7,
  Q5_0 = 8,
  Q5_1 = 9,
  Q2_K = 10,
  Q3_K_S = 11,
  Q3_K_M = 12,
  Q3_K_L = 13,
  Q4_K_S = 14,
  Q4_K_M = 15,
  Q5_K_S = 16,
  Q5_K_M = 17,
  Q6_K = 18,
  IQ2_XXS = 19,
  IQ2_XS = 20,
  Q2_K_S = 21,
  IQ3_XS = 22,
  IQ3_XXS = 23,
  IQ1_S = 24,
  IQ4_NL = 25,
  IQ3_S = 26,
  IQ3_M = 27,
  IQ2_S = 28,
  IQ2_M = 29,
  IQ4_XS = 30,
  IQ1_M = 31,
  BF16 = 32,
  TQ1_0 = 36,
  TQ2_0 = 37,
  MXFP4_MOE = 38,
  NVFP4 = 39,
  Q1_0 = 40,
  Q2_0 = 41,
};

struct Preset {
  std::string_view name;  // as llama-quantize spells it: "Q4_K_M"
  Ftype ftype;
};

// A preset by its exact (upper-case) name, llama-quantize's aliases included ("Q4_K" is Q4_K_M).
std::optional<Preset> find_preset(std::string_view name, bool ignore_case);

// llama_ftype_get_default_type: the type a preset gives every tensor its rules do not change.
std::uint32_t preset_default_type(Ftype ftype);

// The file type of a model whose eligible weights all have `ggml_type` (a block type given as
// --type): the one llama.cpp's loader guesses from that type, else the preset that starts from it
// (MXFP4: MXFP4_MOE, Q2_0: Q2_0). nullopt for a type no file type names (Q8_1, Q8_K).
std::optional<Ftype> file_type_of_type(std::uint32_t ggml_type);

// Every preset name, aliases included, in llama-quantize's order.
std::vector<std::string_view> preset_names();

}  // namespace onnxq::convert_detail
