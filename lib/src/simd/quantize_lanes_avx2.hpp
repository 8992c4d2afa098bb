// The lane operations the AVX2 quantizer families (quantize_{iq4,kquant,legacy}-inl.hpp) need beyond
// vec_avx2.hpp, written once for all of them; each family uses the subset its -inl header lists.
// Internal linkage inside onnxq::simd::avx2, like the vector layer.
#pragma once

#include "simd/vec_avx2.hpp"

namespace onnxq::simd::avx2 {
namespace {

// A lane mask: all-ones lanes in two ymm. Comparisons are ordered (false on NaN, as C's <, >, <=,
// >=, ==) except ne, which is C's != (true on NaN).
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
inline VF vf_max(VF a, VF b) { return {_mm256_max_ps(a.lo, b.lo), _mm256_max_ps(a.hi, b.hi)}; }
inline VF vf_min(VF a, VF b) { return {_mm256_min_ps(a.lo, b.lo), _mm256_min_ps(a.hi, b.hi)}; }
// The magnitude of mag with the sign of sgn.
inline VF vf_copysign(VF mag, VF sgn) {
  const __m256 s = _mm256_castsi256_ps(_mm256_set1_epi32(INT32_MIN));
  return {_mm256_or_ps(_mm256_andnot_ps(s, mag.lo), _mm256_and_ps(s, sgn.lo)),
          _mm256_or_ps(_mm256_andnot_ps(s, mag.hi), _mm256_and_ps(s, sgn.hi))};
}
// Over lanes without NaN: the order does not matter.
inline float hmax(VF a) {
  const __m256 m = _mm256_max_ps(a.lo, a.hi);
  __m128 v = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
  v = _mm_max_ps(v, _mm_movehl_ps(v, v));
  return _mm_cvtss_f32(_mm_max_ss(v, _mm_movehdup_ps(v)));
}
inline float hmin(VF a) {
  const __m256 m = _mm256_min_ps(a.lo, a.hi);
  __m128 v = _mm_min_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
  v = _mm_min_ps(v, _mm_movehl_ps(v, v));
  return _mm_cvtss_f32(_mm_min_ss(v, _mm_movehdup_ps(v)));
}

// Lane k = the largest (smallest) lane of v[k], for 16 vectors at once: each vector's halves
// fold, then pairs of vectors fold into one by halves (inside 128-bit halves, then across them),
// eight at a time. Over lanes without NaN the order does not matter.
template <class Fold>
inline __m256 fold_each8(const __m256* m, Fold fold) {
  __m256 a[4], b[2];
  for (int j = 0; j < 4; ++j)  // per half: [m2j 0|2, m2j+1 0|2, m2j 1|3, m2j+1 1|3]
    a[j] = fold(_mm256_unpacklo_ps(m[2 * j], m[2 * j + 1]), _mm256_unpackhi_ps(m[2 * j], m[2 * j + 1]));
  for (int j = 0; j < 2; ++j) {  // per half: m4j .. m4j+3, each over its half
    const __m256d x = _mm256_castps_pd(a[2 * j]), y = _mm256_castps_pd(a[2 * j + 1]);
    b[j] = fold(_mm256_castpd_ps(_mm256_unpacklo_pd(x, y)), _mm256_castpd_ps(_mm256_unpackhi_pd(x, y)));
  }
  return fold(_mm256_permute2f128_ps(b[0], b[1], 0x20), _mm256_permute2f128_ps(b[0], b[1], 0x31));
}
template <class Fold>
inline VF fold_each(const VF* v, Fold fold) {
  __m256 m[16];
  for (int k = 0; k < 16; ++k) m[k] = fold(v[k].lo, v[k].hi);
  return {fold_each8(m, fold), fold_each8(m + 8, fold)};
}
inline VF lane_maxima(const VF* v) {
  return fold_each(v, [](__m256 x, __m256 y) { return _mm256_max_ps(x, y); });
}
inline VF lane_minima(const VF* v) {
  return fold_each(v, [](__m256 x, __m256 y) { return _mm256_min_ps(x, y); });
}
// Lane k = the sum of the lanes of v[k] (integers: exact in any order).
inline VI lane_sums(const VI* v) {
  VF f[16];
  for (int k = 0; k < 16; ++k) f[k] = {_mm256_castsi256_ps(v[k].lo), _mm256_castsi256_ps(v[k].hi)};
  const VF s = fold_each(f, [](__m256 x, __m256 y) {
    return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(x), _mm256_castps_si256(y)));
  });
  return {_mm256_castps_si256(s.lo), _mm256_castps_si256(s.hi)};
}

template <int P>
inline VM cmp(VF a, VF b) {
  return {_mm256_cmp_ps(a.lo, b.lo, P), _mm256_cmp_ps(a.hi, b.hi, P)};
}
inline VM lt(VF a, VF b) { return cmp<_CMP_LT_OQ>(a, b); }
inline VM gt(VF a, VF b) { return cmp<_CMP_GT_OQ>(a, b); }
inline VM le(VF a, VF b) { return cmp<_CMP_LE_OQ>(a, b); }
inline VM ge(VF a, VF b) { return cmp<_CMP_GE_OQ>(a, b); }
inline VM eq(VF a, VF b) { return cmp<_CMP_EQ_OQ>(a, b); }
inline VM ne(VF a, VF b) { return cmp<_CMP_NEQ_UQ>(a, b); }
// True where a or b is NaN.
inline VM unordered(VF a, VF b) { return cmp<_CMP_UNORD_Q>(a, b); }
inline VM operator&(VM a, VM b) { return {_mm256_and_ps(a.lo, b.lo), _mm256_and_ps(a.hi, b.hi)}; }
inline VM operator|(VM a, VM b) { return {_mm256_or_ps(a.lo, b.lo), _mm256_or_ps(a.hi, b.hi)}; }
inline bool any(VM a) { return _mm256_movemask_ps(_mm256_or_ps(a.lo, a.hi)) != 0; }
inline std::uint32_t lane_bits(VM m) {
  return static_cast<std::uint32_t>(_mm256_movemask_ps(m.lo) | (_mm256_movemask_ps(m.hi) << 8));
}
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
// cvttps2dq: truncation, INT32_MIN for NaN and out of range (rounding.hpp's x86_trunc_i32).
inline VI trunc_x86(VF a) { return {_mm256_cvttps_epi32(a.lo), _mm256_cvttps_epi32(a.hi)}; }
// cvtps2dq with round to nearest even (whatever MXCSR says): INT32_MIN for NaN and out of range.
inline VI round_x86(VF a) {
  constexpr int kMode = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  return {_mm256_cvttps_epi32(_mm256_round_ps(a.lo, kMode)), _mm256_cvttps_epi32(_mm256_round_ps(a.hi, kMode))};
}
// IEEE binary16 (round to nearest even) in the low 16 bits of each lane.
inline VI half_bits(VF a) { return vi_u16(to_f16(a)); }
// The sum of the 16 lanes (integers: exact in any order).
inline std::int32_t hsum(VI a) {
  const __m256i s = _mm256_add_epi32(a.lo, a.hi);
  __m128i v = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
  v = _mm_add_epi32(v, _mm_unpackhi_epi64(v, v));
  return _mm_cvtsi128_si32(_mm_add_epi32(v, _mm_shuffle_epi32(v, 1)));
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

// The low byte of each lane: each 128-bit quarter's four low bytes gathered, then the quarters joined.
inline VB low_bytes(VI a) {
  const __m256i pick = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,  //
                                        -1, -1, -1, -1, 0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m256i lo = _mm256_shuffle_epi8(a.lo, pick);  // bytes 0..3 | 4..7 (per 128-bit half)
  const __m256i hi = _mm256_shuffle_epi8(a.hi, _mm256_alignr_epi8(pick, pick, 8));  // 8..11 | 12..15
  const __m256i both = _mm256_or_si256(lo, hi);
  return _mm_or_si128(_mm256_castsi256_si128(both), _mm256_extracti128_si256(both, 1));
}
inline VB min_s8(VB a, VB b) { return _mm_min_epi8(a, b); }
// Bit k = bit 4 of byte k.
inline std::uint32_t bit4_mask(VB a) { return static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_slli_epi16(a, 3))); }
inline void store16(std::uint8_t* p, VB a) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), a); }
// The low byte of each lane, 16 bytes to p.
inline void store_u8(std::uint8_t* p, VI v) { store16(p, low_bytes(v)); }
// The low 16 bits of each lane, little-endian, 32 bytes to p: each 128-bit half's four low halves
// gathered into its low 8 bytes, then the halves' low quadwords joined.
inline void store_low16(std::uint8_t* p, VI v) {
  const __m256i pick = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1,  //
                                        0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m256i lo = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(v.lo, pick), 0x08);  // quadwords 0, 2
  const __m256i hi = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(v.hi, pick), 0x08);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm256_permute2x128_si256(lo, hi, 0x20));
}

// t[i * stride + k] = rows[k][i] for i, k < 16: sixteen rows of 16 floats (or 4-byte integers)
// transposed as four 8x8 blocks in registers (pairs, quads, then 128-bit halves).
inline void transpose16(const void* const* rows, void* t, int stride) {
  for (int bk = 0; bk < 16; bk += 8) {    // rows bk .. bk + 7
    for (int bi = 0; bi < 16; bi += 8) {  // their values bi .. bi + 7
      __m256 r[8], u[8];
      for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(static_cast<const float*>(rows[bk + k]) + bi);
      for (int k = 0; k < 8; k += 2) {
        u[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
        u[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
      }
      for (int k = 0; k < 8; k += 4) {
        for (int h = 0; h < 2; ++h) {
          r[k + 2 * h] = _mm256_shuffle_ps(u[k + h], u[k + 2 + h], 0x44);      // values 4c + 2h
          r[k + 2 * h + 1] = _mm256_shuffle_ps(u[k + h], u[k + 2 + h], 0xEE);  // values 4c + 2h + 1
        }
      }
      // r[4q + j] holds, in half c, values 4c + j of rows 4q .. 4q + 3.
      float* out = static_cast<float*>(t) + bi * stride + bk;
      for (int j = 0; j < 4; ++j) {
        _mm256_storeu_ps(out + j * stride, _mm256_permute2f128_ps(r[j], r[4 + j], 0x20));
        _mm256_storeu_ps(out + (4 + j) * stride, _mm256_permute2f128_ps(r[j], r[4 + j], 0x31));
      }
    }
  }
}

}  // namespace
}  // namespace onnxq::simd::avx2
