// The format table: one row per ggml tensor type that onnxq reads, the 27
// DequantizePacked block formats and the plain types (F32, F16, ... I64).
// GGUF validation, `onnxq formats`, the operator's length check and dispatch all ask it.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "onnxq/core/dtype.hpp"

namespace onnxq {

struct BlockFormat {
  std::uint32_t ggml_type;       // the number a GGUF tensor-info record stores
  std::string_view ggml_name;    // ggml's own spelling: "q4_K", "f16"
  std::string_view gguf_name;    // GGUF/gguf-py spelling: "Q4_K", "F16"
  std::string_view format_id;    // DequantizePacked format id "gguf:q4_k"; empty for plain types
  std::uint32_t block_elements;  // elements per block (1 for plain types)
  std::uint32_t block_bytes;     // bytes per block (the element size for plain types)
  DType plain_dtype;             // the element dtype of a plain type; Undefined for block formats

  bool is_block_format() const { return plain_dtype == DType::Undefined; }
  double bits_per_weight() const { return 8.0 * block_bytes / block_elements; }
};

// All rows: the 27 block formats in spec order, then the 8 plain types.
std::span<const BlockFormat> all_formats();
// Only the 27 DequantizePacked block formats.
std::span<const BlockFormat> block_formats();

// nullptr when unknown.
const BlockFormat* find_format_by_ggml_type(std::uint32_t ggml_type);
// Accepts "gguf:q4_k", and for convenience "q4_k", "Q4_K", "q4_K" and the plain names "f32" ...
const BlockFormat* find_format(std::string_view name);

// ggml type numbers that existed once and were removed (Q4_2, Q4_3, Q4_0_4_4 ...).
bool is_removed_ggml_type(std::uint32_t ggml_type);

}  // namespace onnxq
