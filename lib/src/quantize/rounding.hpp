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
    return static_cast<std::int32_t>(
        static_cast<std::uint32_t>(static_cast<std::uint64_t>(static_cast<std::int64_t>(v))));
  return 0;
}

// GGML_FP32_TO_FP16: round to nearest even; NaN becomes sign | 0x7E00 (float_to_half keeps payload
// bits, which ggml drops).
inline std::uint16_t ggml_half(float v) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(v);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>(((u >> 16) & 0x8000u) | 0x7E00u);
  return float_to_half(v);
}

// The NaN an x86 CPU makes where an operation on non-NaN operands has no value (inf - inf,
// 0 * inf, inf / inf, 0 / 0) is SSE's "default NaN" 0xFFC00000, whose sign ggml_half keeps (0xFE00);
// AArch64 makes 0x7FC00000 (written 0x7E00). x86_nan(r, operands...) takes the result r of an
// expression whose inputs are `operands` (all else in it constant and not NaN) and gives the NaN x86
// gives: a NaN made inside the expression becomes 0xFFC00000, a NaN coming from an operand keeps its
// bits (both CPUs pass an operand's NaN on unchanged, quieted if signaling). A NaN made on AArch64 is
// always exactly 0x7FC00000, and no operand NaN turns into that pattern unless it was it, so r is a
// made NaN when it is 0x7FC00000 and no operand is. Testing the pattern rather than "no operand is
// NaN" matters: where a made NaN meets an operand's NaN (sum + w * 0 with sum already NaN), the
// compiler may order the addition either way and the result may be the made one. (On x86 the NaNs
// the quantizers make are all 0xFFC00000, so which one such an addition returns does not show.)
// Applied only where such a NaN can reach a stored value: comparisons, fabs and the float-to-int
// steps ignore the sign. On x86 it is r itself, at no cost.
template <class... F>
inline float x86_nan([[maybe_unused]] float r, [[maybe_unused]] F... operands) {
#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
  return r;
#else
  constexpr std::uint32_t kMade = 0x7FC00000u;
  const auto bits = [](float v) { return std::bit_cast<std::uint32_t>(v); };
  return bits(r) == kMade && ((bits(operands) != kMade) && ...) ? std::bit_cast<float>(0xFFC00000u) : r;
#endif
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
