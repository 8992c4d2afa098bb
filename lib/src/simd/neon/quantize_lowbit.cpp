// The neon build of the lowbit quantizers (compiled with this ISA's flags and -ffp-contract=off).
#include "simd/quantize_kernels.hpp"

namespace onnxq::simd::neon {

std::span<const QuantizeKernel> lowbit_quantizers() { return {}; }

}  // namespace onnxq::simd::neon
