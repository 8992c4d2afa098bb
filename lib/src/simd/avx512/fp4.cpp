// The avx512 build of the FP4 format kernels (compiled with this ISA's flags).
// In this order: the ISA vector layer, then the shared kernel pieces, then the family.
#include "simd/vec_avx512.hpp"

#include "simd/kernels_common-inl.hpp"

#include "simd/fp4-inl.hpp"
