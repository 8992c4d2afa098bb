// The avx2 build of the fp4 quantizers (compiled with this ISA's flags and -ffp-contract=off).
#include "simd/vec_avx2.hpp"

#include "simd/quantize_fp4-inl.hpp"
