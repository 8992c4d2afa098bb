// The avx512 quantizing kernels of every family, as one table for the dispatch point.
#include <vector>

#include "simd/quantize_kernels.hpp"

namespace onnxq::simd::avx512 {

std::span<const QuantizeKernel> quantize_kernels() {
  static const std::vector<QuantizeKernel> all = [] {
    std::vector<QuantizeKernel> kernels;
#define ONNXQ_JOIN_FAMILY(family) \
  for (const QuantizeKernel& k : family##_quantizers()) kernels.push_back(k);
    ONNXQ_QUANTIZE_FAMILIES(ONNXQ_JOIN_FAMILY)
#undef ONNXQ_JOIN_FAMILY
    return kernels;
  }();
  return all;
}

}  // namespace onnxq::simd::avx512
