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

// The format families with SIMD kernels: each ISA defines <family>_decoders() in
// lib/src/simd/<isa>/<family>.cpp. Adding a family is one entry here.
#define ONNXQ_SIMD_FAMILIES(X) X(legacy) X(kquant) X(iq) X(ternary) X(fp4) X(lowbit)

#define ONNXQ_DECLARE_FAMILY_TABLE(family) std::span<const FusedDecoders> family##_decoders();
// What one ISA folder exports: every family table and the plain conversions.
#define ONNXQ_DECLARE_ISA_DECODERS(ns)            \
  namespace ns {                                  \
  ONNXQ_SIMD_FAMILIES(ONNXQ_DECLARE_FAMILY_TABLE) \
  const PlainConverters& plain_converters();      \
  }
ONNXQ_DECLARE_ISA_DECODERS(avx2)
ONNXQ_DECLARE_ISA_DECODERS(avx512)
ONNXQ_DECLARE_ISA_DECODERS(neon)
// The IQ family again with VBMI (lib/src/simd/avx512vbmi/): its rows replace avx512's.
namespace avx512vbmi {
std::span<const FusedDecoders> iq_decoders();
}  // namespace avx512vbmi
#undef ONNXQ_DECLARE_ISA_DECODERS
#undef ONNXQ_DECLARE_FAMILY_TABLE

}  // namespace onnxq::simd
