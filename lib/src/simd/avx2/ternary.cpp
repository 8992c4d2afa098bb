// The avx2 build of the ternary format kernels (compiled with this ISA's flags).
#include "simd/vec_avx2.hpp"
#include "simd/kernels_common-inl.hpp"
#include "simd/ternary-inl.hpp"
