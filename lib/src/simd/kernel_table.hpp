// What each ISA's translation units export: per block format, decoders that write every output
// dtype directly (decode fused with the conversion), and the plain float conversions. Only the
// dispatch point (lib/src/decode/dispatch.cpp) reads these tables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace onnxq::simd {

// Writes block_count * QK elements of one output dtype to dst (no alignment needed,
// except for the streaming variants, which need dst aligned to 64 bytes).
using FusedDecodeFn = void (*)(const std::uint8_t* src, std::size_t block_count, void* dst);

enum OutSlot : int { kOutF32 = 0, kOutF16 = 1, kOutBF16 = 2, kOutF64 = 3, kOutSlots = 4 };

struct FusedDecoders {
  std::uint16_t format_index;          // BlockFormat::index of the format decoded
  FusedDecodeFn regular[kOutSlots];    // ordinary stores
  FusedDecodeFn streaming[kOutSlots];  // non-temporal stores, for outputs not re-read soon
};

// Plain float sources converted element-wise; block_count is an element count.
enum PlainSource : int { kFromF32 = 0, kFromF16 = 1, kFromBF16 = 2, kPlainSources = 3 };
struct PlainConverters {
  FusedDecodeFn regular[kPlainSources][kOutSlots];
  FusedDecodeFn streaming[kPlainSources][kOutSlots];
};

// Each ISA namespace defines these in lib/src/simd/<isa>/<family>.cpp, one table per format family.
#define ONNXQ_DECLARE_ISA_TABLES(ns)                 \
  namespace ns {                                     \
  std::span<const FusedDecoders> legacy_decoders();  \
  std::span<const FusedDecoders> kquant_decoders();  \
  std::span<const FusedDecoders> iq_decoders();      \
  std::span<const FusedDecoders> ternary_decoders(); \
  std::span<const FusedDecoders> fp4_decoders();     \
  std::span<const FusedDecoders> lowbit_decoders();  \
  const PlainConverters& plain_converters();         \
  }
ONNXQ_DECLARE_ISA_TABLES(avx2)
ONNXQ_DECLARE_ISA_TABLES(avx512)
#undef ONNXQ_DECLARE_ISA_TABLES

}  // namespace onnxq::simd
