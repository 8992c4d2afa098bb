// The rows each ISA's translation units export: per block format (or plain float type),
// decoders that write every output dtype directly (decode fused with conversion).
#pragma once

#include <cstddef>
#include <cstdint>

namespace onnxq::simd {

// Writes block_count * QK elements of one output dtype to dst (no alignment needed,
// except for the streaming variants, which need dst aligned to 64 bytes).
using FusedDecodeFn = void (*)(const std::uint8_t* src, std::size_t block_count, void* dst);
// The same, typed as the decoder table's float32 decoder (onnxq::BlockDecodeFn).
using F32DecodeFn = void (*)(const std::uint8_t* src, std::size_t block_count, float* y);

enum OutSlot : int { kOutF32 = 0, kOutF16 = 1, kOutBF16 = 2, kOutF64 = 3, kOutSlots = 4 };

struct FusedDecoders {
  std::uint32_t ggml_type;
  F32DecodeFn f32;                     // == regular[kOutF32], typed
  FusedDecodeFn regular[kOutSlots];    // ordinary stores
  FusedDecodeFn streaming[kOutSlots];  // non-temporal stores, for outputs not re-read soon
};

// Plain float sources converted element-wise; block_count is an element count.
enum PlainSource : int { kFromF32 = 0, kFromF16 = 1, kFromBF16 = 2, kPlainSources = 3 };
struct PlainConverters {
  FusedDecodeFn regular[kPlainSources][kOutSlots];
  FusedDecodeFn streaming[kPlainSources][kOutSlots];
};

// Each ISA namespace defines these (lib/src/simd/<isa>/*.cpp); a list ends at ggml_type 0.
#define ONNXQ_DECLARE_ISA_TABLES(ns)                 \
  namespace ns {                                     \
  const FusedDecoders* legacy_decoders();            \
  const FusedDecoders* kquant_decoders();            \
  const FusedDecoders* iq_decoders();                \
  const FusedDecoders* ternary_decoders();           \
  const FusedDecoders* fp4_decoders();               \
  const FusedDecoders* lowbit_decoders();            \
  const PlainConverters& plain_converters();         \
  }
ONNXQ_DECLARE_ISA_TABLES(avx2)
ONNXQ_DECLARE_ISA_TABLES(avx512)
#undef ONNXQ_DECLARE_ISA_TABLES

}  // namespace onnxq::simd
