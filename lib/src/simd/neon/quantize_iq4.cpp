// The neon build of the iq4 quantizers (compiled with this ISA's flags and -ffp-contract=off).
// In this order: the ISA vector layer with the quantizer lane operations, the family.
#include "simd/quantize_lanes_neon.hpp"

#include "simd/quantize_iq4-inl.hpp"
