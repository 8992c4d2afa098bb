// llama.cpp's model file types (enum llama_ftype), the value of general.file_type: which tensor
// type most of a model's weights have ("mostly Q4_K_M"), and the guess llama.cpp's loader makes
// for a file that does not say.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "onnxq/gguf/file.hpp"

namespace onnxq {

// LLAMA_FTYPE_GUESSED: or-ed into a file type that llama.cpp inferred from the tensor types.
inline constexpr std::uint32_t kLlamaFileTypeGuessed = 1024;

// llama.h's name without its LLAMA_FTYPE_ prefix: "MOSTLY_Q4_K_M" for 15, "ALL_F32" for 0. The
// guessed flag is ignored. Empty for a number llama.cpp never used.
std::string_view llama_file_type_name(std::uint32_t file_type);

// The file type llama.cpp's loader assumes when general.file_type is absent: the one named after
// the tensor type that most tensors have (a tie goes to the type that reached the count first,
// tensors visited in name order, as the loader's map visits them), with kLlamaFileTypeGuessed set.
std::uint32_t guess_llama_file_type(std::span<const TensorInfo> tensors);

}  // namespace onnxq
