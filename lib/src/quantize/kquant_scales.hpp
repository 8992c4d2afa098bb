// Scale packing that the scalar K-quant kernels (kquant.cpp) and the SIMD ones
// (simd/quantize_kquant-inl.hpp) share: what is done once per block, after the sub-block searches.
#pragma once

#include <cstdint>

namespace onnxq::quantize {

// The d and dmin a Q2_K block stores, as a decoder reads them back.
struct Q2KScaleBase {
  float d, dmin;
};

// Q2_K's 16 scale bytes (scale index low, min index high) and its d and dmin, written to `block`,
// from the 16 sub-blocks' fitted scales and mins. Without importance (sum_weights null) each is
// quantized to 4 bits against its maximum, a zero maximum storing zeros; with it, by a weighted fit
// (make_qp_quants) weighted by each sub-block's sum of weights.
Q2KScaleBase q2_k_scales(const float* scales, const float* mins, const float* sum_weights, std::uint8_t* block);

}  // namespace onnxq::quantize
