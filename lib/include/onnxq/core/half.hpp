// Conversions between float32 and the 16-bit float types (spec §3.1, §3.2, §4).
// Integer formulas only, so the result never depends on the FP environment
// (no flush-to-zero, no rounding-mode surprises); NaN stays NaN, subnormals are kept.
#pragma once

#include <bit>
#include <cstdint>

namespace onnxq {

// IEEE binary16 to float32; exact (spec §3.1).
inline float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h >> 15) << 31;
  const std::uint32_t e = (h >> 10) & 31;
  const std::uint32_t f = h & 0x3FF;
  if (e == 0) {
    if (f == 0) return std::bit_cast<float>(sign);
    // Subnormal half: f * 2^-24 is a normal float32, computed exactly.
    const float v = static_cast<float>(f) * 0x1p-24f;
    return sign ? -v : v;
  }
  if (e == 31) return std::bit_cast<float>(sign | 0x7F800000u | (f ? (0x00400000u | (f << 13)) : 0u));
  return std::bit_cast<float>(sign | ((e + 112) << 23) | (f << 13));
}

// float32 to binary16, round to nearest, ties to even (spec §4).
inline std::uint16_t float_to_half(float x) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t sign = (u >> 16) & 0x8000u;
  const std::uint32_t a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return static_cast<std::uint16_t>(sign | 0x7E00u | ((a >> 13) & 0x01FFu));
  if (a >= 0x38800000u) {
    // Re-bias the exponent from 127 to 15; the rounding carry may run into the exponent.
    const std::uint32_t m = a - 0x38000000u;
    std::uint32_t r = (m + 0x0FFFu + ((m >> 13) & 1u)) >> 13;
    if (r > 0x7C00u) r = 0x7C00u;
    return static_cast<std::uint16_t>(sign | r);
  }
  // |x| < 2^-14: a half subnormal n * 2^-24 with n = round_half_even(|x| * 2^24).
  // Anything up to and including 2^-25 (a tie with 0) rounds to zero.
  if (a <= 0x33000000u) return static_cast<std::uint16_t>(sign);
  const std::uint32_t e = a >> 23;  // 102..112 here
  const std::uint32_t mant = (a & 0x007FFFFFu) | 0x00800000u;
  const std::uint32_t shift = 126 - e;  // |x|*2^24 = mant * 2^-(126-e)
  std::uint32_t n = mant >> shift;
  const std::uint32_t rest = mant & ((1u << shift) - 1u);
  const std::uint32_t halfway = 1u << (shift - 1);
  if (rest > halfway || (rest == halfway && (n & 1u))) ++n;
  return static_cast<std::uint16_t>(sign | n);
}

// bfloat16 to float32: the upper half of the float32 bit pattern (spec §3.2).
inline float bf16_to_float(std::uint16_t h) { return std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16); }

// float32 to bfloat16, round to nearest, ties to even; quiet NaN with sign and top payload kept (spec §4).
inline std::uint16_t float_to_bf16(float x) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((u >> 16) | 0x0040u);
  return static_cast<std::uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

// float64 to float32 rounded to odd: truncate, and set the last bit when anything was lost.
// Rounding this result once more to a type of at most 22 significant bits (half, bfloat16)
// gives the correctly rounded (RNE) result of the original value: no double-rounding error.
inline float double_to_float_round_odd(double d) {
  float f = static_cast<float>(d);
  if (d != d || static_cast<double>(f) == d) return f;
  std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
  const double back = static_cast<double>(f);
  if ((back > d) == (d > 0)) --bits;  // f rounded away from zero (or to ±inf): step back toward zero
  return std::bit_cast<float>(bits | 1u);
}

inline std::uint16_t double_to_half(double d) { return float_to_half(double_to_float_round_odd(d)); }
inline std::uint16_t double_to_bf16(double d) { return float_to_bf16(double_to_float_round_odd(d)); }

}  // namespace onnxq
