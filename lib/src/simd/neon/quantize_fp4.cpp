// The neon build of the fp4 quantizers (compiled with this ISA's flags and -ffp-contract=off).
#include "simd/vec_neon.hpp"

#include "simd/quantize_fp4-inl.hpp"
