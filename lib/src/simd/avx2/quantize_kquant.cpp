// The avx2 build of the kquant quantizers (compiled with this ISA's flags and -ffp-contract=off).
// In this order: the ISA vector layer, the lane operations the searches need beyond it, the family.
#include "simd/vec_avx2.hpp"

namespace onnxq::simd::avx2 {
namespace {

// Vectors per search group (VF is already two ymm chains; a second pair would spill the 16 registers).
constexpr int kSearchVectors = 1;

// A lane mask: all-ones lanes in two ymm. Comparisons are ordered (false on NaN, as C's <, >,
// <=, ==) except ne, which is C's != (true on NaN).
struct VM {
  __m256 lo, hi;
};
inline VF vf_load(const float* p) { return {_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8)}; }
inline void vi_store(std::int32_t* p, VI v) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v.lo);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + 8), v.hi);
}
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
inline VM le(VF a, VF b) { return cmp<_CMP_LE_OQ>(a, b); }
inline VM eq(VF a, VF b) { return cmp<_CMP_EQ_OQ>(a, b); }
inline VM ne(VF a, VF b) { return cmp<_CMP_NEQ_UQ>(a, b); }
inline VM operator&(VM a, VM b) { return {_mm256_and_ps(a.lo, b.lo), _mm256_and_ps(a.hi, b.hi)}; }
inline VM operator|(VM a, VM b) { return {_mm256_or_ps(a.lo, b.lo), _mm256_or_ps(a.hi, b.hi)}; }
inline bool any(VM a) { return _mm256_movemask_ps(_mm256_or_ps(a.lo, a.hi)) != 0; }
inline VF sel(VM m, VF a, VF b) { return {_mm256_blendv_ps(b.lo, a.lo, m.lo), _mm256_blendv_ps(b.hi, a.hi, m.hi)}; }
inline VI sel(VM m, VI a, VI b) {
  return {_mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(b.lo), _mm256_castsi256_ps(a.lo), m.lo)),
          _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(b.hi), _mm256_castsi256_ps(a.hi), m.hi))};
}
inline VI as_i(VF a) { return {_mm256_castps_si256(a.lo), _mm256_castps_si256(a.hi)}; }
inline VI vi_min(VI a, VI b) { return {_mm256_min_epi32(a.lo, b.lo), _mm256_min_epi32(a.hi, b.hi)}; }
inline VI vi_max(VI a, VI b) { return {_mm256_max_epi32(a.lo, b.lo), _mm256_max_epi32(a.hi, b.hi)}; }
inline VI operator|(VI a, VI b) { return {_mm256_or_si256(a.lo, b.lo), _mm256_or_si256(a.hi, b.hi)}; }
inline VI shl(VI a, int k) {
  const __m128i c = _mm_cvtsi32_si128(k);
  return {_mm256_sll_epi32(a.lo, c), _mm256_sll_epi32(a.hi, c)};
}
inline VI shr(VI a, int k) {
  const __m128i c = _mm_cvtsi32_si128(k);
  return {_mm256_srl_epi32(a.lo, c), _mm256_srl_epi32(a.hi, c)};
}
// The sum of the 16 lanes (integers: exact in any order).
inline std::int32_t vi_hsum(VI v) {
  const __m256i s8 = _mm256_add_epi32(v.lo, v.hi);
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(s8), _mm256_extracti128_si256(s8, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(1, 0, 3, 2)));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 3, 0, 1)));
  return _mm_cvtsi128_si32(s);
}
// The low byte of each lane, 16 bytes to p.
inline void store_u8(std::uint8_t* p, VI v) {
  const __m256i low = _mm256_set1_epi32(0xFF);
  const __m256i w = _mm256_packus_epi32(_mm256_and_si256(v.lo, low), _mm256_and_si256(v.hi, low));  // per 128-bit half
  const __m128i b = _mm_packus_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
  // packus interleaved the halves as lo0..3 hi0..3 lo4..7 hi4..7: put the 4-byte groups back in order.
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_shuffle_epi32(b, _MM_SHUFFLE(3, 1, 2, 0)));
}

}  // namespace
}  // namespace onnxq::simd::avx2

#include "simd/quantize_kquant-inl.hpp"
