// The neon build of the 32-element format kernels (AArch64: no extra flags).
// In this order: the ISA vector layer, then the shared kernel pieces, then the family.
#include "simd/vec_neon.hpp"

#include "simd/kernels_common-inl.hpp"

#include "simd/legacy-inl.hpp"
