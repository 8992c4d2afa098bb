#include "onnxq/stats/block_scales.hpp"

#include <algorithm>
#include <string>

#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"

namespace onnxq {
namespace {

using E = ScaleEncoding;

// Offsets from the per-format layout tables of the specification.
constexpr BlockScaleLayout kLayouts[] = {
    {2, E::Half, 1, {0}},              // q4_0: d
    {3, E::Half, 2, {0, 2}},           // q4_1: d, m
    {6, E::Half, 1, {0}},              // q5_0: d
    {7, E::Half, 2, {0, 2}},           // q5_1: d, m
    {8, E::Half, 1, {0}},              // q8_0: d
    {9, E::Half, 1, {0}},              // q8_1: d (s at 2 is never used to decode)
    {10, E::Half, 2, {80, 82}},        // q2_k: d, dmin after scales and qs
    {11, E::Half, 1, {108}},           // q3_k: d last
    {12, E::Half, 2, {0, 2}},          // q4_k: d, dmin
    {13, E::Half, 2, {0, 2}},          // q5_k: d, dmin
    {14, E::Half, 1, {208}},           // q6_k: d last
    {15, E::Float32, 1, {0}},          // q8_k: float32 d
    {16, E::Half, 1, {0}},             // iq2_xxs
    {17, E::Half, 1, {0}},             // iq2_xs
    {18, E::Half, 1, {0}},             // iq3_xxs
    {19, E::Half, 1, {0}},             // iq1_s
    {20, E::Half, 1, {0}},             // iq4_nl
    {21, E::Half, 1, {0}},             // iq3_s
    {22, E::Half, 1, {0}},             // iq2_s
    {23, E::Half, 1, {0}},             // iq4_xs
    {29, E::Iq1mHalf, 1, {48}},        // iq1_m: d split over the top nibbles of the scale words
    {34, E::Half, 1, {52}},            // tq1_0: d after qs, qh
    {35, E::Half, 1, {64}},            // tq2_0: d after qs
    {39, E::E8M0, 1, {0}},             // mxfp4: e
    {40, E::UE4M3, 4, {0, 1, 2, 3}},   // nvfp4: one scale per 16 elements
    {41, E::Half, 1, {0}},             // q1_0
    {42, E::Half, 1, {0}},             // q2_0
};

std::uint16_t u16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] | (p[1] << 8)); }

ScaleClass classify_half(std::uint16_t h) {
  const unsigned e = (h >> 10) & 31, f = h & 0x3FF;
  if (e == 31) return f ? ScaleClass::NaN : ScaleClass::Infinite;
  if (e == 0 && f) return ScaleClass::Subnormal;
  return ScaleClass::Ordinary;
}

}  // namespace

std::span<const BlockScaleLayout> block_scale_layouts() { return kLayouts; }

const BlockScaleLayout* block_scale_layout(const BlockFormat& format) {
  if (!format.is_block_format()) return nullptr;
  for (const BlockScaleLayout& row : kLayouts)
    if (row.ggml_type == format.ggml_type) return &row;
  return nullptr;
}

ScaleClass classify_scale(ScaleEncoding encoding, const std::uint8_t* p) {
  switch (encoding) {
    case E::Half:
      return classify_half(u16(p));
    case E::Float32: {
      const std::uint32_t u = p[0] | (p[1] << 8) | (p[2] << 16) | (std::uint32_t{p[3]} << 24);
      const std::uint32_t e = (u >> 23) & 0xFF, f = u & 0x7FFFFF;
      if (e == 0xFF) return f ? ScaleClass::NaN : ScaleClass::Infinite;
      return e == 0 && f ? ScaleClass::Subnormal : ScaleClass::Ordinary;
    }
    case E::E8M0:
      // S(e) = 2^(e-128): float32 subnormal for e = 0, 1; e = 255 is finite (spec §3.3).
      return p[0] <= 1 ? ScaleClass::Subnormal : ScaleClass::Ordinary;
    case E::UE4M3: {
      // Bit 7 is ignored; 0x7F decodes to 0 (spec §3.4). Exponent 0 with a mantissa is subnormal.
      const unsigned x = p[0];
      if (x == 0x7F) return ScaleClass::Ordinary;
      return ((x >> 3) & 15) == 0 && (x & 7) != 0 ? ScaleClass::Subnormal : ScaleClass::Ordinary;
    }
    case E::Iq1mHalf: {
      const std::uint16_t d = static_cast<std::uint16_t>((u16(p) >> 12) | ((u16(p + 2) >> 12) << 4) |
                                                         ((u16(p + 4) >> 12) << 8) | ((u16(p + 6) >> 12) << 12));
      return classify_half(d);
    }
  }
  return ScaleClass::Ordinary;
}

ScaleCounts count_block_scales(const BlockFormat& format, std::span<const std::byte> src, std::uint64_t first_block,
                               std::uint64_t block_count) {
  const auto end_block = checked_add(first_block, block_count);
  const auto end_byte = end_block ? checked_mul(*end_block, format.block_bytes) : std::nullopt;
  if (!end_byte || *end_byte > src.size())
    invalid_argument("blocks [" + std::to_string(first_block) + ", +" + std::to_string(block_count) + ") of " +
                     std::string(format.gguf_name) + " lie outside the " + std::to_string(src.size()) +
                     " input bytes");
  ScaleCounts counts;
  const BlockScaleLayout* layout = block_scale_layout(format);
  if (!layout) return counts;
  const auto* block = reinterpret_cast<const std::uint8_t*>(src.data()) + first_block * format.block_bytes;
  for (std::uint64_t b = 0; b < block_count; ++b, block += format.block_bytes) {
    bool nan = false, inf = false, sub = false;
    for (unsigned k = 0; k < layout->field_count; ++k) {
      const ScaleClass c = classify_scale(layout->encoding, block + layout->offsets[k]);
      nan |= c == ScaleClass::NaN;
      inf |= c == ScaleClass::Infinite;
      sub |= c == ScaleClass::Subnormal;
    }
    counts.nan += nan;
    counts.inf += inf;
    counts.subnormal += sub;
  }
  return counts;
}

}  // namespace onnxq
