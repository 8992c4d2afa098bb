// The avx512 build of the kquant quantizers (compiled with this ISA's flags and -ffp-contract=off).
// In this order: the ISA vector layer with the quantizer lane operations, the search width, the family.
#include "simd/quantize_lanes_avx512.hpp"

namespace onnxq::simd::avx512 {
namespace {

// Vectors per search group (32 zmm registers hold two chains of the searches' sums).
constexpr int kSearchVectors = 2;

}  // namespace
}  // namespace onnxq::simd::avx512

#include "simd/quantize_kquant-inl.hpp"
