// The avx512 build of the kquant quantizers (compiled with this ISA's flags and -ffp-contract=off).
// In this order: the ISA vector layer, the lane operations the searches need beyond it, the family.
// GCC 12's AVX-512 headers trip -Wuninitialized on _mm512_undefined_* once inlined (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wuninitialized"

#include "simd/vec_avx512.hpp"

namespace onnxq::simd::avx512 {
namespace {

// Vectors per search group (32 zmm registers hold two chains of the searches' sums).
constexpr int kSearchVectors = 2;

// A lane mask: one bit per lane. Comparisons are ordered (false on NaN, as C's <, >, <=, ==)
// except ne, which is C's != (true on NaN).
struct VM {
  __mmask16 m;
};
inline VF vf_load(const float* p) { return {_mm512_loadu_ps(p)}; }
inline void vi_store(std::int32_t* p, VI v) { _mm512_storeu_si512(p, v.v); }
inline VF operator/(VF a, VF b) { return {_mm512_div_ps(a.v, b.v)}; }
inline VF vf_sqrt(VF a) { return {_mm512_sqrt_ps(a.v)}; }
inline VF vf_abs(VF a) {
  return {_mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(a.v), _mm512_set1_epi32(0x7FFFFFFF)))};
}
inline VF vf_neg(VF a) {
  return {_mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(a.v), _mm512_set1_epi32(INT32_MIN)))};
}
inline VM lt(VF a, VF b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_LT_OQ)}; }
inline VM gt(VF a, VF b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_GT_OQ)}; }
inline VM le(VF a, VF b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_LE_OQ)}; }
inline VM eq(VF a, VF b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_EQ_OQ)}; }
inline VM ne(VF a, VF b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_NEQ_UQ)}; }
inline VM operator&(VM a, VM b) { return {static_cast<__mmask16>(a.m & b.m)}; }
inline VM operator|(VM a, VM b) { return {static_cast<__mmask16>(a.m | b.m)}; }
inline bool any(VM a) { return a.m != 0; }
inline VF sel(VM m, VF a, VF b) { return {_mm512_mask_blend_ps(m.m, b.v, a.v)}; }
inline VI sel(VM m, VI a, VI b) { return {_mm512_mask_blend_epi32(m.m, b.v, a.v)}; }
inline VI as_i(VF a) { return {_mm512_castps_si512(a.v)}; }
inline VI vi_min(VI a, VI b) { return {_mm512_min_epi32(a.v, b.v)}; }
inline VI vi_max(VI a, VI b) { return {_mm512_max_epi32(a.v, b.v)}; }
inline VI operator|(VI a, VI b) { return {_mm512_or_si512(a.v, b.v)}; }
inline VI shl(VI a, int k) { return {_mm512_sll_epi32(a.v, _mm_cvtsi32_si128(k))}; }
inline VI shr(VI a, int k) { return {_mm512_srl_epi32(a.v, _mm_cvtsi32_si128(k))}; }
// The sum of the 16 lanes (integers: exact in any order).
inline std::int32_t vi_hsum(VI v) { return _mm512_reduce_add_epi32(v.v); }
// The low byte of each lane, 16 bytes to p.
inline void store_u8(std::uint8_t* p, VI v) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_cvtepi32_epi8(v.v));
}

}  // namespace
}  // namespace onnxq::simd::avx512

#include "simd/quantize_kquant-inl.hpp"
