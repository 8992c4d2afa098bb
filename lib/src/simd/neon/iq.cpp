// The neon build of the IQ kernels (grid formats: iq_grids_neon-inl.hpp) (AArch64: no extra flags).
// In this order: the ISA vector layer, then the shared kernel pieces, then the family.
#include "simd/vec_neon.hpp"

#include "simd/kernels_common-inl.hpp"

#include "simd/iq-inl.hpp"
