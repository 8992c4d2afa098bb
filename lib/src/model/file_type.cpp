#include "onnxq/model/file_type.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

namespace onnxq {
namespace {

struct FileTypeRow {
  std::uint32_t id;
  std::string_view name;
  std::optional<std::uint32_t> guessed_from;  // the ggml type that makes llama.cpp guess this file type
};

// llama.h's enum llama_ftype (4-6 and 33-35 are retired numbers, kept so old files still get a name),
// and the mapping of llama_model_loader's guess from the most common tensor type.
constexpr FileTypeRow kFileTypes[] = {
    {0, "ALL_F32", 0},
    {1, "MOSTLY_F16", 1},
    {2, "MOSTLY_Q4_0", 2},
    {3, "MOSTLY_Q4_1", 3},
    {4, "MOSTLY_Q4_1_SOME_F16", {}},
    {5, "MOSTLY_Q4_2", {}},
    {6, "MOSTLY_Q4_3", {}},
    {7, "MOSTLY_Q8_0", 8},
    {8, "MOSTLY_Q5_0", 6},
    {9, "MOSTLY_Q5_1", 7},
    {10, "MOSTLY_Q2_K", 10},
    {11, "MOSTLY_Q3_K_S", {}},
    {12, "MOSTLY_Q3_K_M", 11},
    {13, "MOSTLY_Q3_K_L", {}},
    {14, "MOSTLY_Q4_K_S", {}},
    {15, "MOSTLY_Q4_K_M", 12},
    {16, "MOSTLY_Q5_K_S", {}},
    {17, "MOSTLY_Q5_K_M", 13},
    {18, "MOSTLY_Q6_K", 14},
    {19, "MOSTLY_IQ2_XXS", 16},
    {20, "MOSTLY_IQ2_XS", 17},
    {21, "MOSTLY_Q2_K_S", {}},
    {22, "MOSTLY_IQ3_XS", {}},
    {23, "MOSTLY_IQ3_XXS", 18},
    {24, "MOSTLY_IQ1_S", 19},
    {25, "MOSTLY_IQ4_NL", 20},
    {26, "MOSTLY_IQ3_S", 21},
    {27, "MOSTLY_IQ3_M", {}},
    {28, "MOSTLY_IQ2_S", 22},
    {29, "MOSTLY_IQ2_M", {}},
    {30, "MOSTLY_IQ4_XS", 23},
    {31, "MOSTLY_IQ1_M", 29},
    {32, "MOSTLY_BF16", 30},
    {33, "MOSTLY_Q4_0_4_4", {}},
    {34, "MOSTLY_Q4_0_4_8", {}},
    {35, "MOSTLY_Q4_0_8_8", {}},
    {36, "MOSTLY_TQ1_0", 34},
    {37, "MOSTLY_TQ2_0", 35},
    {38, "MOSTLY_MXFP4_MOE", {}},
    {39, "MOSTLY_NVFP4", 40},
    {40, "MOSTLY_Q1_0", 41},
};

}  // namespace

std::string_view llama_file_type_name(std::uint32_t file_type) {
  const std::uint32_t id = file_type & ~kLlamaFileTypeGuessed;
  for (const FileTypeRow& row : kFileTypes)
    if (row.id == id) return row.name;
  return {};
}

std::uint32_t guess_llama_file_type(std::span<const TensorInfo> tensors) {
  std::vector<const TensorInfo*> by_name;
  by_name.reserve(tensors.size());
  for (const TensorInfo& t : tensors) by_name.push_back(&t);
  std::sort(by_name.begin(), by_name.end(), [](const TensorInfo* a, const TensorInfo* b) { return a->name < b->name; });
  std::map<std::uint32_t, std::uint64_t> counts;
  std::uint64_t best_count = 0;
  std::optional<std::uint32_t> best;
  for (const TensorInfo* t : by_name) {
    const std::uint64_t n = ++counts[t->ggml_type];
    if (n > best_count) {
      best_count = n;
      best = t->ggml_type;
    }
  }
  std::uint32_t guess = 0;  // llama.cpp falls back to ALL_F32 for a type it has no file type for
  if (best)
    for (const FileTypeRow& row : kFileTypes)
      if (row.guessed_from == best) guess = row.id;
  return guess | kLlamaFileTypeGuessed;
}

}  // namespace onnxq
