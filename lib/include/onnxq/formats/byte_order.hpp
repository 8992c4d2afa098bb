// Byte order of stored tensor data. A big-endian GGUF file stores every multi-byte number of
// its tensor data in its own byte order: plain elements (F16, F32, I32 ...) and, inside the
// blocks of the quantized formats, the binary16/binary32 scales and the int16 sums listed in
// the format rows (BlockFormat::fields). Single bytes (packed quants, integer sub-scales,
// mxfp4's E8M0 exponent, nvfp4's UE4M3 scales) have no byte order. This is what llama.cpp's
// gguf_convert_endian.py writes for Q4_0, Q8_0, Q4_K, Q6_K and MXFP4, extended to every format.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "onnxq/formats/format.hpp"

namespace onnxq {

// Bytes of each number a field of this kind holds: 2 or 4, or 1 when byte order does not apply.
constexpr unsigned field_word_bytes(FieldKind kind) {
  switch (kind) {
    case FieldKind::Fp16Scale:
    case FieldKind::Fp16Sum:
    case FieldKind::I16Sums:
    case FieldKind::Iq1mScales: return 2;  // iq1_m: four uint16 words
    case FieldKind::Fp32Scale: return 4;
    case FieldKind::Bytes:
    case FieldKind::E8M0Scale:
    case FieldKind::UE4M3Scales: return 1;
  }
  return 1;
}

// Whether the format's stored bytes depend on the byte order (it has a multi-byte number).
bool has_byte_order(const BlockFormat& format);

// Reverses the bytes of every multi-byte number in `blocks` (whole blocks of `format`, or
// plain elements), in place: big-endian storage to little-endian and back.
// Throws Error(InvalidArgument) when `blocks` is not a whole number of blocks.
void swap_byte_order(const BlockFormat& format, std::span<std::byte> blocks);

// Blocks [first_block, first_block + block_count) of `src` with little-endian numbers: a view
// of `src` when it already is (`big_endian` false, or nothing to swap), else a swapped copy
// kept in `scratch`. Throws Error(InvalidArgument) for a range outside `src`.
std::span<const std::byte> little_endian_blocks(const BlockFormat& format, std::span<const std::byte> src,
                                                bool big_endian, std::uint64_t first_block, std::uint64_t block_count,
                                                std::vector<std::byte>& scratch);

}  // namespace onnxq
