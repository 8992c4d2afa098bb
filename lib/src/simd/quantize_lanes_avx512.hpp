// The lane operations the AVX-512 quantizer families (quantize_{iq4,kquant,legacy}-inl.hpp) need
// beyond vec_avx512.hpp, written once for all of them; each family uses the subset its -inl header
// lists. Internal linkage inside onnxq::simd::avx512, like the vector layer.
#pragma once

// GCC 12's AVX-512 headers trip -Wuninitialized too on _mm512_undefined_* once inlined into the
// families (GCC bug 105593, as lib/CMakeLists.txt notes for -Wmaybe-uninitialized). Deliberately
// not pushed/popped: it must cover the family code that includes this header.
#pragma GCC diagnostic ignored "-Wuninitialized"

#include "simd/vec_avx512.hpp"

namespace onnxq::simd::ONNXQ_SIMD_NS {
namespace {

// A lane mask: one bit per lane. Comparisons are ordered (false on NaN, as C's <, >, <=, >=, ==)
// except ne, which is C's != (true on NaN).
struct VM {
  __mmask16 m;
};

inline VF vf_load(const float* p) { return {_mm512_loadu_ps(p)}; }
inline void vi_store(std::int32_t* p, VI v) { _mm512_storeu_si512(p, v.v); }

inline VF operator/(VF a, VF b) { return {_mm512_div_ps(a.v, b.v)}; }
inline VF vf_sqrt(VF a) { return {_mm512_sqrt_ps(a.v)}; }
inline VF vf_abs(VF a) { return {_mm512_abs_ps(a.v)}; }
inline VF vf_neg(VF a) {
  return {_mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(a.v), _mm512_set1_epi32(INT32_MIN)))};
}
inline VF vf_max(VF a, VF b) { return {_mm512_max_ps(a.v, b.v)}; }
inline VF vf_min(VF a, VF b) { return {_mm512_min_ps(a.v, b.v)}; }
// The magnitude of mag with the sign of sgn.
inline VF vf_copysign(VF mag, VF sgn) {
  const __m512i s = _mm512_set1_epi32(INT32_MIN);
  // 0xCA: bitwise s ? sgn : mag.
  return {
      _mm512_castsi512_ps(_mm512_ternarylogic_epi32(s, _mm512_castps_si512(sgn.v), _mm512_castps_si512(mag.v), 0xCA))};
}
// Over lanes without NaN: the order does not matter.
inline float hmax(VF a) { return _mm512_reduce_max_ps(a.v); }
inline float hmin(VF a) { return _mm512_reduce_min_ps(a.v); }

// Lane k = the largest (smallest) lane of v[k], for 16 vectors at once: pairs of vectors fold
// into one by halves (inside 128-bit quarters, then across quarters), 15 folds in all where 16
// separate reductions take 64 steps. Over lanes without NaN the order does not matter.
template <class Fold>
inline VF fold_each(const VF* v, Fold fold) {
  __m512 a[8], b[4], c[2];
  for (int j = 0; j < 8; ++j)  // per quarter: [v2j 0|2, v2j+1 0|2, v2j 1|3, v2j+1 1|3]
    a[j] = fold(_mm512_unpacklo_ps(v[2 * j].v, v[2 * j + 1].v), _mm512_unpackhi_ps(v[2 * j].v, v[2 * j + 1].v));
  for (int j = 0; j < 4; ++j) {  // per quarter: v4j .. v4j+3, each over its quarter
    const __m512d x = _mm512_castps_pd(a[2 * j]), y = _mm512_castps_pd(a[2 * j + 1]);
    b[j] = fold(_mm512_castpd_ps(_mm512_unpacklo_pd(x, y)), _mm512_castpd_ps(_mm512_unpackhi_pd(x, y)));
  }
  for (int j = 0; j < 2; ++j)  // quarters 0|2 and 1|3 of b[2j], then of b[2j + 1]
    c[j] = fold(_mm512_shuffle_f32x4(b[2 * j], b[2 * j + 1], 0x44), _mm512_shuffle_f32x4(b[2 * j], b[2 * j + 1], 0xEE));
  return {fold(_mm512_shuffle_f32x4(c[0], c[1], 0x88), _mm512_shuffle_f32x4(c[0], c[1], 0xDD))};
}
inline VF lane_maxima(const VF* v) {
  return fold_each(v, [](__m512 x, __m512 y) { return _mm512_max_ps(x, y); });
}
inline VF lane_minima(const VF* v) {
  return fold_each(v, [](__m512 x, __m512 y) { return _mm512_min_ps(x, y); });
}
// Lane k = the sum of the lanes of v[k] (integers: exact in any order).
inline VI lane_sums(const VI* v) {
  VF f[16];
  for (int k = 0; k < 16; ++k) f[k] = {_mm512_castsi512_ps(v[k].v)};
  const VF s = fold_each(f, [](__m512 x, __m512 y) {
    return _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(x), _mm512_castps_si512(y)));
  });
  return {_mm512_castps_si512(s.v)};
}

inline VM lt(VF a, VF b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_LT_OQ)}; }
inline VM gt(VF a, VF b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_GT_OQ)}; }
inline VM le(VF a, VF b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_LE_OQ)}; }
inline VM ge(VF a, VF b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_GE_OQ)}; }
inline VM eq(VF a, VF b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_EQ_OQ)}; }
inline VM ne(VF a, VF b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_NEQ_UQ)}; }
// True where a or b is NaN.
inline VM unordered(VF a, VF b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_UNORD_Q)}; }
inline VM operator&(VM a, VM b) { return {static_cast<__mmask16>(a.m & b.m)}; }
inline VM operator|(VM a, VM b) { return {static_cast<__mmask16>(a.m | b.m)}; }
inline bool any(VM a) { return a.m != 0; }
inline std::uint32_t lane_bits(VM m) { return m.m; }
inline VF sel(VM m, VF a, VF b) { return {_mm512_mask_blend_ps(m.m, b.v, a.v)}; }
inline VI sel(VM m, VI a, VI b) { return {_mm512_mask_blend_epi32(m.m, b.v, a.v)}; }

inline VI as_i(VF a) { return {_mm512_castps_si512(a.v)}; }
inline VI vi_min(VI a, VI b) { return {_mm512_min_epi32(a.v, b.v)}; }
inline VI vi_max(VI a, VI b) { return {_mm512_max_epi32(a.v, b.v)}; }
inline VI operator|(VI a, VI b) { return {_mm512_or_si512(a.v, b.v)}; }
inline VI shl(VI a, int k) { return {_mm512_sll_epi32(a.v, _mm_cvtsi32_si128(k))}; }
inline VI shr(VI a, int k) { return {_mm512_srl_epi32(a.v, _mm_cvtsi32_si128(k))}; }
// cvttps2dq: truncation, INT32_MIN for NaN and out of range (rounding.hpp's x86_trunc_i32).
inline VI trunc_x86(VF a) { return {_mm512_cvttps_epi32(a.v)}; }
// cvtps2dq with round to nearest even (whatever MXCSR says): INT32_MIN for NaN and out of range.
inline VI round_x86(VF a) { return {_mm512_cvt_roundps_epi32(a.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)}; }
// IEEE binary16 (round to nearest even) in the low 16 bits of each lane.
inline VI half_bits(VF a) { return {_mm512_cvtepu16_epi32(_mm512_cvtps_ph(a.v, _MM_FROUND_TO_NEAREST_INT))}; }
// The sum of the 16 lanes (integers: exact in any order).
inline std::int32_t hsum(VI a) { return _mm512_reduce_add_epi32(a.v); }

// table[idx] for indices in 0..7, table 8 floats in memory.
inline VF lookup8f(const float* table, VI idx) {
  return {_mm512_permutexvar_ps(idx.v, _mm512_castps256_ps512(_mm256_loadu_ps(table)))};
}
// table[idx] for 16 indices in 0..15, table 16 floats in memory.
inline VF lookup16f(const float* table, VI idx) { return {_mm512_permutexvar_ps(idx.v, _mm512_loadu_ps(table))}; }

// The low byte of each lane.
inline VB low_bytes(VI a) { return _mm512_cvtepi32_epi8(a.v); }
inline VB min_s8(VB a, VB b) { return _mm_min_epi8(a, b); }
// Bit k = bit 4 of byte k.
inline std::uint32_t bit4_mask(VB a) { return static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_slli_epi16(a, 3))); }
inline void store16(std::uint8_t* p, VB a) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), a); }
// The low byte of each lane, 16 bytes to p.
inline void store_u8(std::uint8_t* p, VI v) { store16(p, low_bytes(v)); }
// The low 16 bits of each lane, little-endian, 32 bytes to p.
inline void store_low16(std::uint8_t* p, VI v) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtepi32_epi16(v.v));
}

// t[i * stride + k] = rows[k][i] for i, k < 16: sixteen rows of 16 floats (or 4-byte integers)
// transposed in registers (pairs, quads, then 128-bit quarters interleaved), 16 loads and stores.
inline void transpose16(const void* const* rows, void* t, int stride) {
  __m512 r[16], u[16];
  for (int k = 0; k < 16; ++k) r[k] = _mm512_loadu_ps(rows[k]);
  for (int k = 0; k < 16; k += 2) {  // 2x2 blocks of lanes
    u[k] = _mm512_unpacklo_ps(r[k], r[k + 1]);
    u[k + 1] = _mm512_unpackhi_ps(r[k], r[k + 1]);
  }
  for (int k = 0; k < 16; k += 4) {  // 4x4 within each 128-bit quarter
    for (int h = 0; h < 2; ++h) {
      const __m512d a = _mm512_castps_pd(u[k + h]), b = _mm512_castps_pd(u[k + 2 + h]);
      r[k + 2 * h] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b));      // values 4c + 2h
      r[k + 2 * h + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b));  // values 4c + 2h + 1
    }
  }
  // r[4q + j] now holds, in quarter c, values 4c + j of rows 4q .. 4q + 3; the quarters regroup.
  for (int j = 0; j < 4; ++j) {
    const __m512 a = _mm512_shuffle_f32x4(r[j], r[4 + j], 0x88), b = _mm512_shuffle_f32x4(r[8 + j], r[12 + j], 0x88);
    const __m512 c = _mm512_shuffle_f32x4(r[j], r[4 + j], 0xDD), d = _mm512_shuffle_f32x4(r[8 + j], r[12 + j], 0xDD);
    u[j] = _mm512_shuffle_f32x4(a, b, 0x88);       // values j (quarter 0)
    u[8 + j] = _mm512_shuffle_f32x4(a, b, 0xDD);   // values 8 + j (quarter 2)
    u[4 + j] = _mm512_shuffle_f32x4(c, d, 0x88);   // values 4 + j (quarter 1)
    u[12 + j] = _mm512_shuffle_f32x4(c, d, 0xDD);  // values 12 + j (quarter 3)
  }
  for (int i = 0; i < 16; ++i) _mm512_storeu_ps(static_cast<float*>(t) + i * stride, u[i]);
}

}  // namespace
}  // namespace onnxq::simd::ONNXQ_SIMD_NS
