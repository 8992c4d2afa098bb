// The format table: one row per ggml tensor type that onnxq reads, the 27
// DequantizePacked block formats and the plain types (F32, F16, ... I64). The rows are
// expanded from lib/src/formats/format_rows.def, the one place a format's facts are typed.
// GGUF validation, `onnxq formats`, the operator's length check, the decoders, their
// dispatch and `stats` all ask it.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "onnxq/core/dtype.hpp"

namespace onnxq {

// Which reference file (lib/src/reference/<family>.cpp) and SIMD kernels
// (lib/src/simd/<family>-inl.hpp) decode a format.
enum class FormatFamily : std::uint8_t { Legacy, KQuant, Iq, Ternary, Fp4, LowBit, Plain };

// What the bytes of one block field hold. "little-endian" is the usual storage; a big-endian
// file stores the multi-byte kinds big-endian (onnxq/formats/byte_order.hpp).
enum class FieldKind : std::uint8_t {
  Bytes,        // packed quants, sign bits, integer sub-scales: single bytes, no byte order
  Fp16Scale,    // an IEEE binary16 scale, little-endian
  Fp32Scale,    // an IEEE binary32 scale, little-endian (q8_k)
  E8M0Scale,    // one exponent byte per block (mxfp4)
  UE4M3Scales,  // one unsigned FP8 scale byte per 16 elements (nvfp4)
  Iq1mScales,   // four little-endian uint16 words: 3-bit sub-scales, and a binary16 in the top nibbles (iq1_m)
  Fp16Sum,      // a binary16 that decoding never reads (q8_1's s)
  I16Sums,      // little-endian int16 sums that decoding never reads (q8_k's bsums)
};

// One field of a block: `width` bytes at byte `offset` of the block.
struct BlockField {
  std::string_view name;  // the layout struct's member: "d", "qs", ...
  std::uint16_t offset;
  std::uint16_t width;
  FieldKind kind;
};

struct BlockFormat {
  std::uint16_t index;           // this row's position in all_formats(): dense, for tables keyed by format
  std::uint32_t ggml_type;       // the number a GGUF tensor-info record stores
  std::string_view ggml_name;    // ggml's own spelling: "q4_K", "f16"
  std::string_view gguf_name;    // GGUF/gguf-py spelling: "Q4_K", "F16"
  std::string_view format_id;    // DequantizePacked format id "gguf:q4_k"; empty for plain types
  std::uint32_t block_elements;  // elements per block (1 for plain types)
  std::uint32_t block_bytes;     // bytes per block (the element size for plain types)
  DType plain_dtype;             // the element dtype of a plain type; Undefined for block formats
  FormatFamily family;
  std::span<const BlockField> fields;  // the block's fields in storage order; empty for plain types

  constexpr bool is_block_format() const { return plain_dtype == DType::Undefined; }
  constexpr double bits_per_weight() const { return 8.0 * block_bytes / block_elements; }
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
