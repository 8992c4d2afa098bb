// The avx2 build of the plain-type conversions (compiled with this ISA's flags).
#include "simd/vec_avx2.hpp"
#include "simd/kernels_common-inl.hpp"
#include "simd/plain-inl.hpp"
