// The avx512 build of the lowbit quantizers (compiled with this ISA's flags and -ffp-contract=off).
#include "simd/vec_avx512.hpp"

#include "simd/quantize_lowbit-inl.hpp"
