// The neon build of the fp4 quantizers (compiled with this ISA's flags and -ffp-contract=off).
#include "simd/quantize_kernels.hpp"

namespace onnxq::simd::neon {

std::span<const QuantizeKernel> fp4_quantizers() { return {}; }

}  // namespace onnxq::simd::neon
