// The IQ family again for AVX-512 with VBMI (this folder adds -mavx512vbmi to the AVX-512
// flags): the grid formats look their codes up with byte permutes (iq_codes-inl.hpp). In
// its own namespace, avx512vbmi; the dispatcher puts these rows over avx512's.
#define ONNXQ_SIMD_NS avx512vbmi
#include "simd/vec_avx512.hpp"

#include "simd/kernels_common-inl.hpp"

#include "simd/iq-inl.hpp"
