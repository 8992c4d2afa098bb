// Independent reference for the 16-bit float types (test-only): decode patterns with
// the textbook formula and round in double arithmetic, unrelated to the library's
// integer bit tricks.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

namespace onnxq::testing {

// Reference decoding of a 16-bit pattern to double (sign, exponent, fraction by the
// textbook formula). NaN patterns give NaN.
inline double ref_half_value(std::uint16_t h) {
  const int s = h >> 15, e = (h >> 10) & 31, f = h & 1023;
  double v;
  if (e == 31)
    v = f ? NAN : INFINITY;
  else if (e == 0)
    v = std::ldexp(f, -24);
  else
    v = std::ldexp(1024 + f, e - 25);
  return s ? -v : v;
}

inline double ref_bf16_value(std::uint16_t h) {
  const int s = h >> 15, e = (h >> 7) & 255, f = h & 127;
  double v;
  if (e == 255)
    v = f ? NAN : INFINITY;
  else if (e == 0)
    v = std::ldexp(f, -133);
  else
    v = std::ldexp(128 + f, e - 134);
  return s ? -v : v;
}

// Round to the nearest even integer for 0 <= x < 2^51: adding 2^52 leaves no fraction bits,
// so the FPU's default rounding (nearest even) does the work.
inline double round_even(double x) {
  volatile double big = 0x1p52;
  return (x + big) - big;
}

// A correct RNE conversion to a binary format with `mant_bits` stored fraction bits,
// minimum normal exponent `emin` and largest finite value `max`, computed in double:
// scale by the target's spacing (a power of two) at x's binade, round to an integer, scale back.
struct RefRounder {
  RefRounder(int mant_bits, int emin, double max) : max(max) {
    for (int E = 0; E < 256; ++E) {
      const int lead = std::max(E == 0 ? -127 : E - 127, emin);  // float32 subnormals are below every emin here
      quantum[E] = std::ldexp(1.0, lead - mant_bits);
      inverse[E] = std::ldexp(1.0, mant_bits - lead);
    }
  }
  double operator()(float x) const {
    const std::uint32_t E = (std::bit_cast<std::uint32_t>(x) >> 23) & 255;
    const double a = std::fabs(static_cast<double>(x));
    double r = E == 255 ? INFINITY : round_even(a * inverse[E]) * quantum[E];
    if (r > max) r = INFINITY;  // anything that rounds past the largest finite value overflows
    return std::signbit(x) ? -r : r;
  }
  std::array<double, 256> quantum, inverse;
  double max;
};

// The bit-exact expectation for x as FLOAT16 / BFLOAT16 is any pattern whose
// ref_*_value equals these (NaN: any NaN of x's sign).
inline const RefRounder& ref_to_half() {
  static const RefRounder r(10, -14, 65504.0);
  return r;
}
inline const RefRounder& ref_to_bf16() {
  static const RefRounder r(7, -126, std::ldexp(255.0, 120));
  return r;
}

}  // namespace onnxq::testing
