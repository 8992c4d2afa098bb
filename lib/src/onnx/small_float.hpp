// Exact widening of the 8- and 4-bit ONNX float types to double, for comparing and
// printing them. Layouts follow the ONNX "Float stored in 8 bits" / FLOAT4E2M1 notes.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace onnxq::detail {

// sign | exponent (exp_bits, bias) | mantissa (man_bits); subnormals when exponent == 0.
inline double widen_minifloat(std::uint32_t bits, int exp_bits, int man_bits, int bias) {
  const std::uint32_t man = bits & ((1u << man_bits) - 1);
  const std::uint32_t exp = (bits >> man_bits) & ((1u << exp_bits) - 1);
  const bool negative = (bits >> (exp_bits + man_bits)) & 1u;
  const double v =
      exp == 0 ? std::ldexp(static_cast<double>(man), 1 - bias - man_bits)
               : std::ldexp(static_cast<double>(man | (1u << man_bits)), static_cast<int>(exp) - bias - man_bits);
  return negative ? -v : v;
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// E4M3FN: no infinities; S.1111.111 is NaN.
inline double float8e4m3fn_to_double(std::uint8_t b) {
  if ((b & 0x7F) == 0x7F) return kNaN;
  return widen_minifloat(b, 4, 3, 7);
}

// The FNUZ types have no infinities and no negative zero: 0x80 is the only NaN.
inline double float8e4m3fnuz_to_double(std::uint8_t b) {
  if (b == 0x80) return kNaN;
  return widen_minifloat(b, 4, 3, 8);
}

// E5M2 is IEEE-like: exponent 31 means infinity (mantissa 0) or NaN.
inline double float8e5m2_to_double(std::uint8_t b) {
  if ((b & 0x7C) == 0x7C) return (b & 0x03) ? kNaN : ((b & 0x80) ? -kInf : kInf);
  return widen_minifloat(b, 5, 2, 15);
}

inline double float8e5m2fnuz_to_double(std::uint8_t b) {
  if (b == 0x80) return kNaN;
  return widen_minifloat(b, 5, 2, 16);
}

// FLOAT4E2M1: every code is a finite number (0, 0.5, 1, 1.5, 2, 3, 4, 6 and negatives).
inline double float4e2m1_to_double(std::uint8_t nibble) { return widen_minifloat(nibble & 0x0F, 2, 1, 1); }

}  // namespace onnxq::detail
