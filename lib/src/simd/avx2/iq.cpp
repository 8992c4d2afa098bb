// The avx2 build of the iq-format kernels (compiled with this ISA's flags).
// In this order: the ISA vector layer, then the shared kernel pieces, then the family.
#include "simd/vec_avx2.hpp"

#include "simd/kernels_common-inl.hpp"

#include "simd/iq-inl.hpp"
