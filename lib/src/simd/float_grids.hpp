// The IQ grid codebooks with every magnitude byte already a float32 (exact: all are
// below 64), so the SIMD kernels load eight (or four) finished values per grid index
// instead of widening and converting bytes. Built once, on first use.
#pragma once

namespace onnxq::simd {

struct FloatGrids {
  const float* iq2xxs;  // 256 x 8
  const float* iq2xs;   // 512 x 8
  const float* iq2s;    // 1024 x 8
  const float* iq3xxs;  // 256 x 4
  const float* iq3s;    // 512 x 4
};

const FloatGrids& float_grids();

}  // namespace onnxq::simd
