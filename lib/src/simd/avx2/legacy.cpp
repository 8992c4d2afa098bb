// The avx2 build of the 32-element format kernels (compiled with this ISA's flags).
#include "simd/vec_avx2.hpp"
#include "simd/kernels_common-inl.hpp"
#include "simd/legacy-inl.hpp"
