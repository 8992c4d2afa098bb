// The scale searches shared by the legacy formats (with an importance matrix) and the K-quants:
// each returns a block's scale and writes its integer levels, in ggml's exact operation order
// (src/ggml-quants.c: nearest_int, make_qx_quants, make_q3_quants, make_qkx2_quants,
// make_qkx3_quants, make_qp_quants). `n` values at `x`, levels to `levels`.
#pragma once

#include <cstdint>

namespace onnxq::quantize {

// ggml's nearest_int: round to nearest, ties to even, through the 1.5 * 2^23 magic number
// (exact for |x| <= 4194303).
int nearest_int(float x);

// Symmetric levels in [-nmax, nmax-1] stored as level + nmax; rmse_type 0..4 as ggml; weights may be null.
float make_qx_quants(int n, int nmax, const float* x, std::int8_t* levels, int rmse_type, const float* weights);
// Symmetric 3-bit levels for Q3_K without an importance matrix.
float make_q3_quants(int n, int nmax, const float* x, std::int8_t* levels, bool do_rmse);
// Asymmetric levels in [0, nmax] with a minimum (returned negated in *the_min), iterative search.
float make_qkx2_quants(int n, int nmax, const float* x, const float* weights, std::uint8_t* levels, float* the_min,
                       std::uint8_t* scratch, float rmin, float rdelta, int nstep, bool use_mad);
float make_qkx3_quants(int n, int nmax, const float* x, const float* weights, std::uint8_t* levels, float* the_min,
                       std::uint8_t* scratch, float rmin, float rdelta, int nstep, bool use_mad);
// Non-negative levels for the block scales of Q2_K / Q6_K-like super-blocks with importance weights.
float make_qp_quants(int n, int nmax, const float* x, std::uint8_t* levels, const float* quant_weights);

}  // namespace onnxq::quantize
