// The avx2 build of the kquant quantizers (compiled with this ISA's flags and -ffp-contract=off).
// In this order: the ISA vector layer with the quantizer lane operations, the search width, the family.
#include "simd/quantize_lanes_avx2.hpp"

namespace onnxq::simd::avx2 {
namespace {

// Vectors per search group (VF is already two ymm chains; a second pair would spill the 16 registers).
constexpr int kSearchVectors = 1;

}  // namespace
}  // namespace onnxq::simd::avx2

#include "simd/quantize_kquant-inl.hpp"
