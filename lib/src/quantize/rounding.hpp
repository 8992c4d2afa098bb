// Helpers shared by the quantizers (private to lib/src/quantize): the float-to-integer steps
// of ggml-quants.c reproduced without undefined behaviour, and little-endian stores.
//
// ggml converts floats to narrow integers with plain C casts ((int8_t)(x + 8.5f), roundf into an
// int8_t, lroundf into an int). Those casts are undefined for NaN and out-of-range values, which
// ggml reaches when a block's scale underflows (1/d = inf, so 0 * inf = NaN). The oracle is the
// x86-64 build, where every such cast is cvttss2si: truncation toward zero, or INT32_MIN (the
// "integer indefinite") when the value has no int32; the narrow type then keeps the low bits.
// The helpers below give exactly that on any compiler and CPU.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

#include "onnxq/core/half.hpp"

namespace onnxq::quantize::detail {

// cvttss2si: truncation, or INT32_MIN for NaN and anything outside (-2^31, 2^31) (-2^31 itself
// converts to INT32_MIN too). A select and a conversion, so loops of it vectorize.
inline std::int32_t x86_trunc_i32(float v) {
  return std::fabs(v) < 2147483648.0f ? static_cast<std::int32_t>(v) : INT32_MIN;
}

// The low byte of x86_trunc_i32: a C cast of a float to int8_t or uint8_t. INT32_MIN's low byte is
// 0, as is that of a truncated 0, so the select can come before the conversion.
inline std::uint8_t x86_trunc_u8(float v) {
  return static_cast<std::uint8_t>(static_cast<std::int32_t>(std::fabs(v) < 2147483648.0f ? v : 0.0f));
}

// (int32) roundf(v) as cvttss2si converts it. Below 2^23, adding the largest float under 1/2 with
// v's sign and truncating rounds half away from zero with no double rounding (the sum's own
// rounding can only carry it up to the next integer when v's fraction is >= 1/2); checked against
// roundf for every finite float by the dev harness. From 2^23 on, every float is an integer.
inline std::int32_t round_away_i32(float v) {
  return x86_trunc_i32(std::fabs(v) < 8388608.0f ? v + std::copysign(0.49999997f, v) : v);
}

// (int) lroundf(v) with glibc on x86-64: round half away from zero into a long, or LONG_MIN for
// NaN, infinities and anything beyond the long range; the int keeps the low 32 bits (0 for LONG_MIN).
inline std::int32_t lround_low32(float v) {
  const float a = std::fabs(v);
  if (a < 8388608.0f) return static_cast<std::int32_t>(v + std::copysign(0.49999997f, v));
  if (a < 9223372036854775808.0f)  // an integer that fits a long: keep its low 32 bits
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(static_cast<std::int64_t>(v))));
  return 0;
}

// GGML_FP32_TO_FP16: round to nearest even; NaN becomes sign | 0x7E00 (float_to_half keeps payload
// bits, which ggml drops).
inline std::uint16_t ggml_half(float v) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(v);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>(((u >> 16) & 0x8000u) | 0x7E00u);
  return float_to_half(v);
}

inline void store_u16(std::uint8_t* p, std::uint32_t v) {
  p[0] = static_cast<std::uint8_t>(v);
  p[1] = static_cast<std::uint8_t>(v >> 8);
}

inline void store_u32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

inline void store_half(std::uint8_t* p, float v) { store_u16(p, ggml_half(v)); }

}  // namespace onnxq::quantize::detail
