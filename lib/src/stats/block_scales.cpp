#include "onnxq/stats/block_scales.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <iterator>
#include <optional>
#include <string>

#include "formats/format_rows.hpp"
#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/core/half.hpp"

namespace onnxq {
namespace {

using E = ScaleEncoding;
using formats::kBlockFormatCount;
using formats::kFormatRows;

// How a field of this kind encodes its scale; nullopt for fields that hold no float scale
// (quants, integer sub-scales, and q8_1's s and q8_k's bsums, which decoding never reads).
constexpr std::optional<ScaleEncoding> scale_encoding(FieldKind kind) {
  switch (kind) {
    case FieldKind::Fp16Scale: return E::Half;
    case FieldKind::Fp32Scale: return E::Float32;
    case FieldKind::E8M0Scale: return E::E8M0;
    case FieldKind::UE4M3Scales: return E::UE4M3;
    case FieldKind::Iq1mScales: return E::Iq1mHalf;
    case FieldKind::Bytes:
    case FieldKind::Fp16Sum:
    case FieldKind::I16Sums: return std::nullopt;
  }
  return std::nullopt;
}

// A format's scale fields from its row: one offset per field, or per byte of a UE4M3Scales
// field. Empty if they do not fit a BlockScaleLayout (mixed encodings, more than 4).
constexpr BlockScaleLayout scale_layout_of(const BlockFormat& format) {
  BlockScaleLayout layout{format.ggml_type, E::Half, 0, {}};
  for (const BlockField& field : format.fields) {
    const std::optional<ScaleEncoding> encoding = scale_encoding(field.kind);
    if (!encoding) continue;
    if (layout.field_count > 0 && layout.encoding != *encoding) return {};
    layout.encoding = *encoding;
    const unsigned count = field.kind == FieldKind::UE4M3Scales ? field.width : 1;
    for (unsigned k = 0; k < count; ++k) {
      if (layout.field_count == std::size(layout.offsets)) return {};
      layout.offsets[layout.field_count++] = static_cast<std::uint16_t>(field.offset + k);
    }
  }
  return layout;
}

// One row per block format, at its BlockFormat::index.
constexpr auto kLayouts = [] {
  std::array<BlockScaleLayout, kBlockFormatCount> layouts{};
  for (std::size_t i = 0; i < layouts.size(); ++i) layouts[i] = scale_layout_of(kFormatRows[i]);
  return layouts;
}();
static_assert(std::ranges::all_of(kLayouts, [](const BlockScaleLayout& l) { return l.field_count > 0; }),
              "every block format has 1 to 4 scale fields of one encoding");

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
  if (format.index >= kLayouts.size() || kLayouts[format.index].ggml_type != format.ggml_type) return nullptr;
  return &kLayouts[format.index];
}

ScaleClass classify_scale(ScaleEncoding encoding, const std::uint8_t* p) {
  switch (encoding) {
    case E::Half: return classify_half(u16(p));
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

double scale_value(ScaleEncoding encoding, const std::uint8_t* p) {
  switch (encoding) {
    case E::Half: return half_to_float(u16(p));
    case E::Float32:
      return std::bit_cast<float>(static_cast<std::uint32_t>(p[0] | (p[1] << 8) | (p[2] << 16)) |
                                  (std::uint32_t{p[3]} << 24));
    case E::E8M0: return std::ldexp(1.0, static_cast<int>(p[0]) - 128);
    case E::UE4M3: {
      const unsigned x = p[0] & 0x7F, e = x >> 3, m = x & 7;
      if (x == 0x7F) return 0.0;
      return e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1.0 + m / 8.0, static_cast<int>(e) - 7);
    }
    case E::Iq1mHalf:
      return half_to_float(static_cast<std::uint16_t>((u16(p) >> 12) | ((u16(p + 2) >> 12) << 4) |
                                                      ((u16(p + 4) >> 12) << 8) | ((u16(p + 6) >> 12) << 12)));
  }
  return 0.0;
}

ScaleCounts count_block_scales(const BlockFormat& format, std::span<const std::byte> src, std::uint64_t first_block,
                               std::uint64_t block_count) {
  const auto end_block = checked_add(first_block, block_count);
  const auto end_byte = end_block ? checked_mul(*end_block, format.block_bytes) : std::nullopt;
  if (!end_byte || *end_byte > src.size())
    invalid_argument("blocks [" + std::to_string(first_block) + ", +" + std::to_string(block_count) + ") of " +
                     std::string(format.gguf_name) + " lie outside the " + std::to_string(src.size()) + " input bytes");
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
