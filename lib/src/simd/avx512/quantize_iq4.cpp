// The avx512 build of the iq4 quantizers (compiled with this ISA's flags and -ffp-contract=off).
// In this order: the ISA vector layer, the lane operations the family needs beyond it, the family.
// GCC 12's AVX-512 headers trip -Wuninitialized too on _mm512_undefined_* once inlined here (GCC
// bug 105593, as lib/CMakeLists.txt notes for -Wmaybe-uninitialized).
#pragma GCC diagnostic ignored "-Wuninitialized"

#include "simd/vec_avx512.hpp"

namespace onnxq::simd::avx512 {
namespace {

// A lane mask: one bit per lane. Comparisons are ordered (false on NaN, as C's <, >, >=) except
// ne, which is C's != (true on NaN).
struct VM {
  __mmask16 m;
};
inline VF vf_load(const float* p) { return {_mm512_loadu_ps(p)}; }
inline VF operator/(VF a, VF b) { return {_mm512_div_ps(a.v, b.v)}; }
inline VF vf_sqrt(VF a) { return {_mm512_sqrt_ps(a.v)}; }
inline VF vf_abs(VF a) { return {_mm512_abs_ps(a.v)}; }
inline VF vf_neg(VF a) {
  return {_mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(a.v), _mm512_set1_epi32(INT32_MIN)))};
}
inline VM lt(VF a, VF b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_LT_OQ)}; }
inline VM gt(VF a, VF b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_GT_OQ)}; }
inline VM ge(VF a, VF b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_GE_OQ)}; }
inline VM ne(VF a, VF b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_NEQ_UQ)}; }
inline VM operator&(VM a, VM b) { return {static_cast<__mmask16>(a.m & b.m)}; }
inline VF sel(VM m, VF a, VF b) { return {_mm512_mask_blend_ps(m.m, b.v, a.v)}; }
inline VI sel(VM m, VI a, VI b) { return {_mm512_mask_blend_epi32(m.m, b.v, a.v)}; }
// table[idx] for indices in 0..7, table 8 floats in memory.
inline VF lookup8f(const float* table, VI idx) {
  return {_mm512_permutexvar_ps(idx.v, _mm512_castps256_ps512(_mm256_loadu_ps(table)))};
}
// table[idx] for 16 indices in 0..15, table 16 floats in memory.
inline VF lookup16f(const float* table, VI idx) { return {_mm512_permutexvar_ps(idx.v, _mm512_loadu_ps(table))}; }
inline void vi_store(std::int32_t* p, VI v) { _mm512_storeu_si512(p, v.v); }
// The low byte of each lane.
inline VB low_bytes(VI a) { return _mm512_cvtepi32_epi8(a.v); }
inline void store16(std::uint8_t* p, VB a) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), a); }
// IEEE binary16 (round to nearest even) in the low 16 bits of each lane.
inline VI half_bits(VF a) { return {_mm512_cvtepu16_epi32(_mm512_cvtps_ph(a.v, _MM_FROUND_TO_NEAREST_INT))}; }
inline VI as_i(VF a) { return {_mm512_castps_si512(a.v)}; }
inline VI operator|(VI a, VI b) { return {_mm512_or_si512(a.v, b.v)}; }

}  // namespace
}  // namespace onnxq::simd::avx512

#include "simd/quantize_iq4-inl.hpp"
