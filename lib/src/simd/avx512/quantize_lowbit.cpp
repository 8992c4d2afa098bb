// The avx512 build of the lowbit quantizers (compiled with this ISA's flags and -ffp-contract=off).
#include "simd/quantize_kernels.hpp"

namespace onnxq::simd::avx512 {

std::span<const QuantizeKernel> lowbit_quantizers() { return {}; }

}  // namespace onnxq::simd::avx512
