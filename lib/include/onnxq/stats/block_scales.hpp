// Where each block format keeps its floating-point scale fields (the scale-kind fields of
// its format row, BlockFormat::fields), and a check of those fields for NaN, infinity and
// subnormal values (spec §1 "scale fields", §3.3, §3.4, §5-§10). Integer sub-scales are not
// listed: they cannot be NaN, infinite or subnormal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "onnxq/formats/format.hpp"

namespace onnxq {

enum class ScaleEncoding : std::uint8_t {
  Half,      // IEEE binary16 at the offset
  Float32,   // IEEE binary32 at the offset (q8_k)
  E8M0,      // one exponent byte (mxfp4): never NaN/Inf in ggml's rule; e = 0, 1 give float32 subnormals
  UE4M3,     // one unsigned FP8 byte (nvfp4): never NaN/Inf in ggml's rule; E = 0, M != 0 is subnormal
  Iq1mHalf,  // a binary16 assembled from the top nibbles of four uint16 words starting at the offset
};

// One row per block format: up to four scale fields, each at a byte offset in the block
// (nvfp4's four UE4M3 bytes count as four fields).
struct BlockScaleLayout {
  std::uint32_t ggml_type;
  ScaleEncoding encoding;
  std::uint8_t field_count;
  std::uint16_t offsets[4];
};

// nullptr for plain types (F32, F16, ...), which have no scales.
const BlockScaleLayout* block_scale_layout(const BlockFormat& format);
std::span<const BlockScaleLayout> block_scale_layouts();

enum class ScaleClass : std::uint8_t { Ordinary, Subnormal, Infinite, NaN };

// Classifies one scale field of `encoding` whose bytes start at `field`.
ScaleClass classify_scale(ScaleEncoding encoding, const std::uint8_t* field);
// The value of one scale field (NaN and infinities as stored; E8M0 as 2^(e-128), UE4M3 with bit 7
// ignored and 0x7F as 0, as the spec reads them).
double scale_value(ScaleEncoding encoding, const std::uint8_t* field);

// Blocks with at least one scale field of the class (a block can count in several).
struct ScaleCounts {
  std::uint64_t nan = 0;
  std::uint64_t inf = 0;
  std::uint64_t subnormal = 0;
  ScaleCounts& operator+=(const ScaleCounts& o) {
    nan += o.nan;
    inf += o.inf;
    subnormal += o.subnormal;
    return *this;
  }
};

// Counts over blocks [first_block, first_block + block_count) of a tensor's packed bytes.
// All zeros for plain types. Throws Error(InvalidArgument) for a range outside `src`.
ScaleCounts count_block_scales(const BlockFormat& format, std::span<const std::byte> src, std::uint64_t first_block,
                               std::uint64_t block_count);

}  // namespace onnxq
