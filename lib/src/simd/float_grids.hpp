// Lookup tables the SIMD kernels share, built once on first use by code compiled without
// ISA flags. The IQ grid codebooks with every magnitude byte already a float32 (exact: all
// are below 64), so the kernels load eight (or four) finished values per grid index
// instead of widening and converting bytes; and the IQ sign bytes and 7-bit sign codes as
// lane masks, so signs cost a load and an xor instead of bit tests.
#pragma once

namespace onnxq::simd {

struct FloatGrids {
  const float* iq2xxs;  // 256 x 8
  const float* iq2xs;   // 512 x 8
  const float* iq2s;    // 1024 x 8
  const float* iq3xxs;  // 256 x 4
  const float* iq3s;    // 512 x 4
  // Sign masks, 8 lanes per entry: lane k is -0.0f (only the sign bit) where element k is
  // negated, else +0.0f, so one xor applies eight signs (exactly "* -1.0" for non-NaN).
  const float* sign_bytes;  // 256 x 8: entry b, bit k of b
  const float* sign_codes;  // 128 x 8: entry s, bit k of ksigns_iq2xs[s] (the parity bit already in)
};

const FloatGrids& float_grids();

// T(x) of spec §3.4 (half the UE4M3 scale) for every byte x: a lookup instead of branches.
const float* ue4m3_half_scales();

}  // namespace onnxq::simd
