// Lookup tables the SIMD kernels share, built once on first use by code compiled without
// ISA flags. The IQ grid codebooks with every magnitude byte already a float32 (exact: all
// are below 64), so the kernels load eight (or four) finished values per grid index
// instead of widening and converting bytes; and the IQ sign bytes and 7-bit sign codes as
// lane masks, so signs cost a load and an xor instead of bit tests.
#pragma once

#include <cstdint>

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

// The IQ grids as small codes of their magnitudes, for kernels that look magnitudes up with
// a register permute: code c stands for the grid's c-th smallest distinct value (iq2: 8,
// 25, 43; iq3: eight values each). An entry is one uint16, so a word permute looks up 32
// entries at once. iq2 (8 elements): element k's code in bits 2k, 2k+1. iq3 (4 elements):
// a nibble each, elements 0 and 2 in the low byte and 1 and 3 in the high byte, so that one
// byte shuffle gathers the even and the odd elements of four entries into the two halves
// of a 64-bit word. Code tables are 64-byte aligned. magnitudes and negated: a 16-lane
// permute table indexed by a code with its element's sign bit above it (iq2: bit 2; iq3:
// bit 3): lane j of magnitudes is the value of code j % n (n = 4 for iq2, 8 for iq3; the
// unused iq2 code 3 reads 0), and lane j of negated is -0.0f where j / n is odd, else +0.0f:
// the sign bit an xor applies after the product, exactly the spec's "* -1.0" (which ggml's
// compiler also turns into a sign flip, NaN included).
struct GridCode {
  const std::uint16_t* codes;
  const float* magnitudes;
  const float* negated;
  const std::uint8_t* code_bytes;  // the codes' low bytes, then their high bytes (byte permutes)
};
struct GridCodes {
  GridCode iq2xxs, iq2xs, iq2s;  // 256, 512, 1024 entries
  GridCode iq3xxs, iq3s;         // 256, 512 entries
};

const GridCodes& grid_codes();

// T(x) of spec §3.4 (half the UE4M3 scale) for every byte x: a lookup instead of branches.
const float* ue4m3_half_scales();

}  // namespace onnxq::simd
