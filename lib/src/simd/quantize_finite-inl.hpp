// Whether a row holds only finite values, in the ISA's vectors: quantize_rows asks it of every row
// before the kernel reads it, and the scalar loop (SSE2 at best in a portable build) cost about as
// much as a Q4_0 or Q8_0 kernel itself. Included by one quantizer file per ISA, after its lanes.
#pragma once

#include <cmath>
#include <cstddef>

namespace onnxq::simd::ONNXQ_SIMD_NS {

// v - v is +0 for a finite value and NaN for NaN or an infinity, and a NaN stays in a sum: four
// sums of those differences are zero exactly when every value is finite.
bool all_finite(const float* x, std::size_t n) {
  const VF zero = vf_set1(0.f);
  VF a = zero, b = zero, c = zero, d = zero;
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const VF v0 = vf_load(x + i), v1 = vf_load(x + i + 16), v2 = vf_load(x + i + 32), v3 = vf_load(x + i + 48);
    a = a + (v0 - v0);
    b = b + (v1 - v1);
    c = c + (v2 - v2);
    d = d + (v3 - v3);
  }
  for (; i + 16 <= n; i += 16) {
    const VF v = vf_load(x + i);
    a = a + (v - v);
  }
  const VF sum = (a + b) + (c + d);
  if (lane_bits(eq(sum, zero)) != 0xFFFFu) return false;
  for (; i < n; ++i)
    if (!std::isfinite(x[i])) return false;
  return true;
}

}  // namespace onnxq::simd::ONNXQ_SIMD_NS
