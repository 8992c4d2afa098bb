// The neon build of the 1- and 2-bit kernels (AArch64: no extra flags).
// In this order: the ISA vector layer, then the shared kernel pieces, then the family.
#include "simd/vec_neon.hpp"

#include "simd/kernels_common-inl.hpp"

#include "simd/lowbit-inl.hpp"
