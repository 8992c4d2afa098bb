// The avx512 build of the fp4 quantizers (compiled with this ISA's flags and -ffp-contract=off).
#include "simd/quantize_kernels.hpp"

namespace onnxq::simd::avx512 {

std::span<const QuantizeKernel> fp4_quantizers() { return {}; }

}  // namespace onnxq::simd::avx512
