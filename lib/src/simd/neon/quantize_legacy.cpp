// The neon build of the legacy quantizers (compiled with this ISA's flags and -ffp-contract=off).
// In this order: the ISA vector layer with the quantizer lane operations, the family.
#include "simd/quantize_lanes_neon.hpp"

#include "simd/quantize_legacy-inl.hpp"
