// The avx2 build of the lowbit quantizers (compiled with this ISA's flags and -ffp-contract=off).
#include "simd/vec_avx2.hpp"

#include "simd/quantize_lowbit-inl.hpp"
