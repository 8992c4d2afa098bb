// Lookup tables the SIMD kernels share, built once on first use by code compiled without
// ISA flags. The IQ grid codebooks with every magnitude byte already a float32 (exact: all
// are below 64), so the kernels load eight (or four) finished values per grid index
// instead of widening and converting bytes.
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

// T(x) of spec §3.4 (half the UE4M3 scale) for every byte x: a lookup instead of branches.
const float* ue4m3_half_scales();

}  // namespace onnxq::simd
