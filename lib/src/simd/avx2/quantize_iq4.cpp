// The avx2 build of the iq4 quantizers (compiled with this ISA's flags and -ffp-contract=off).
// In this order: the ISA vector layer, the lane operations the family needs beyond it, the family.
#include "simd/vec_avx2.hpp"

namespace onnxq::simd::avx2 {
namespace {

// A lane mask: all-ones lanes in two ymm. Comparisons are ordered (false on NaN, as C's <, >, >=)
// except ne, which is C's != (true on NaN).
struct VM {
  __m256 lo, hi;
};
inline VF vf_load(const float* p) { return {_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8)}; }
inline VF operator/(VF a, VF b) { return {_mm256_div_ps(a.lo, b.lo), _mm256_div_ps(a.hi, b.hi)}; }
inline VF vf_sqrt(VF a) { return {_mm256_sqrt_ps(a.lo), _mm256_sqrt_ps(a.hi)}; }
inline VF vf_abs(VF a) {
  const __m256 m = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
  return {_mm256_and_ps(a.lo, m), _mm256_and_ps(a.hi, m)};
}
inline VF vf_neg(VF a) {
  const __m256 s = _mm256_castsi256_ps(_mm256_set1_epi32(INT32_MIN));
  return {_mm256_xor_ps(a.lo, s), _mm256_xor_ps(a.hi, s)};
}
template <int P>
inline VM cmp(VF a, VF b) {
  return {_mm256_cmp_ps(a.lo, b.lo, P), _mm256_cmp_ps(a.hi, b.hi, P)};
}
inline VM lt(VF a, VF b) { return cmp<_CMP_LT_OQ>(a, b); }
inline VM gt(VF a, VF b) { return cmp<_CMP_GT_OQ>(a, b); }
inline VM ge(VF a, VF b) { return cmp<_CMP_GE_OQ>(a, b); }
inline VM ne(VF a, VF b) { return cmp<_CMP_NEQ_UQ>(a, b); }
inline VM operator&(VM a, VM b) { return {_mm256_and_ps(a.lo, b.lo), _mm256_and_ps(a.hi, b.hi)}; }
inline VF sel(VM m, VF a, VF b) { return {_mm256_blendv_ps(b.lo, a.lo, m.lo), _mm256_blendv_ps(b.hi, a.hi, m.hi)}; }
inline VI sel(VM m, VI a, VI b) {
  return {_mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(b.lo), _mm256_castsi256_ps(a.lo), m.lo)),
          _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(b.hi), _mm256_castsi256_ps(a.hi), m.hi))};
}
// table[idx] for indices in 0..7, table 8 floats in memory: one permute per ymm.
inline VF lookup8f(const float* table, VI idx) {
  const __m256 t = _mm256_loadu_ps(table);
  return {_mm256_permutevar8x32_ps(t, idx.lo), _mm256_permutevar8x32_ps(t, idx.hi)};
}
// table[idx] for 16 indices in 0..15, table 16 floats in memory: both halves of the table
// permuted, then the one that bit 3 of the index (moved to the sign bit) names.
inline __m256 lookup8x2(__m256 t0, __m256 t1, __m256i idx) {
  return _mm256_blendv_ps(_mm256_permutevar8x32_ps(t0, idx), _mm256_permutevar8x32_ps(t1, idx),
                          _mm256_castsi256_ps(_mm256_slli_epi32(idx, 28)));
}
inline VF lookup16f(const float* table, VI idx) {
  const __m256 t0 = _mm256_loadu_ps(table), t1 = _mm256_loadu_ps(table + 8);
  return {lookup8x2(t0, t1, idx.lo), lookup8x2(t0, t1, idx.hi)};
}
inline void vi_store(std::int32_t* p, VI v) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v.lo);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + 8), v.hi);
}
// The low byte of each lane: each 128-bit quarter's four low bytes gathered, then the quarters joined.
inline VB low_bytes(VI a) {
  const __m256i pick = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,  //
                                        -1, -1, -1, -1, 0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m256i lo = _mm256_shuffle_epi8(a.lo, pick);
  const __m256i hi = _mm256_shuffle_epi8(a.hi, _mm256_alignr_epi8(pick, pick, 8));
  const __m256i both = _mm256_or_si256(lo, hi);
  return _mm_or_si128(_mm256_castsi256_si128(both), _mm256_extracti128_si256(both, 1));
}
inline void store16(std::uint8_t* p, VB a) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), a); }
// IEEE binary16 (round to nearest even) in the low 16 bits of each lane.
inline VI half_bits(VF a) { return vi_u16(to_f16(a)); }
inline VI as_i(VF a) { return {_mm256_castps_si256(a.lo), _mm256_castps_si256(a.hi)}; }
inline VI operator|(VI a, VI b) { return {_mm256_or_si256(a.lo, b.lo), _mm256_or_si256(a.hi, b.hi)}; }

}  // namespace
}  // namespace onnxq::simd::avx2

#include "simd/quantize_iq4-inl.hpp"
