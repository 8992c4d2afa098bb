// The avx512 build of the legacy quantizers (compiled with this ISA's flags and -ffp-contract=off).
// In this order: the ISA vector layer with the quantizer lane operations, the family, and the
// finiteness check that quantize_rows runs on every row (it has no other ISA file to live in).
#include "simd/quantize_lanes_avx512.hpp"

#include "simd/quantize_finite-inl.hpp"
#include "simd/quantize_legacy-inl.hpp"
