// The neon build of the kquant quantizers (compiled with this ISA's flags and -ffp-contract=off).
// In this order: the ISA vector layer with the quantizer lane operations, the search width, the family.
#include "simd/quantize_lanes_neon.hpp"

namespace onnxq::simd::neon {
namespace {
// Vectors per search group (VF is already four q-register chains).
constexpr int kSearchVectors = 1;
}  // namespace
}  // namespace onnxq::simd::neon

#include "simd/quantize_kquant-inl.hpp"
