// The low-bit quantizers (tq1_0, tq2_0, q1_0, q2_0), written once over the 16-lane vector layer
// and compiled per ISA: include a vec_<isa>.hpp first (see simd/<isa>/quantize_lowbit.cpp). They
// write the bytes of the scalar reference (quantize/lowbit.cpp) on every input.
//
// How the lanes stay exact: lanes are values of one block, each running its own scalar expression
// (the product x * id, the rounding, the clamp). The block maximum of |x| is taken as an integer
// maximum of the bit patterns (exact in any order; NaN and inf come out >= 0x7F800000). A block
// whose maximum is not a finite normal float (all zero, tiny, inf, NaN) goes to the reference
// kernel, so the lanes only meet |x * id| <= ~1, where rounding half away from zero is one add and
// one truncation (rounding.hpp's round_away_i32 and lround_low32 reduce to it there). q1_0's sum
// is a float sum in scalar order: its lanes are blocks (each accumulates its own 128 values).
//
// This file also holds the few lane operations both families (lowbit, fp4) need beyond the
// vector layer, per ISA, in namespace lbq (quantize_fp4-inl.hpp includes it with
// ONNXQ_LBQ_OPS_ONLY defined). Masks: M, from ordered compares (false on NaN, as C's <).
#ifndef ONNXQ_SIMD_NS
#error "include simd/vec_<isa>.hpp first"
#endif

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "formats/format_rows.hpp"
#include "quantize/kernels.hpp"
#include "quantize/rounding.hpp"
#include "simd/quantize_kernels.hpp"

namespace onnxq::simd::ONNXQ_SIMD_NS {
namespace {
namespace lbq {

#if defined(__AVX512F__)
using M = __mmask16;
// GCC 12 expands the unmasked forms of several AVX-512 intrinsics with an undefined source and warns
// (bug 105593) where they inline here: the masked forms with every lane selected avoid it.
inline __m512i max32(__m512i a, __m512i b) { return _mm512_mask_max_epi32(a, 0xFFFF, a, b); }
inline VF ld(const float* p) { return {_mm512_loadu_ps(p)}; }
inline VI bits(VF a) { return {_mm512_castps_si512(a.v)}; }
inline VF from_bits(VI a) { return {_mm512_castsi512_ps(a.v)}; }
inline VF fabs_(VF a) { return from_bits({_mm512_and_si512(bits(a).v, _mm512_set1_epi32(0x7FFFFFFF))}); }
inline VI imax(VI a, VI b) { return {max32(a.v, b.v)}; }
inline VI imin(VI a, VI b) { return {_mm512_min_epi32(a.v, b.v)}; }
inline std::int32_t hmax(VI a) {
  __m512i m = max32(a.v, _mm512_mask_shuffle_i64x2(a.v, 0xFF, a.v, a.v, _MM_SHUFFLE(1, 0, 3, 2)));
  m = max32(m, _mm512_mask_shuffle_i64x2(m, 0xFF, m, m, _MM_SHUFFLE(2, 3, 0, 1)));
  __m128i q = _mm512_maskz_extracti32x4_epi32(0xF, m, 0);
  q = _mm_max_epi32(q, _mm_shuffle_epi32(q, _MM_SHUFFLE(1, 0, 3, 2)));
  return _mm_cvtsi128_si32(_mm_max_epi32(q, _mm_shuffle_epi32(q, _MM_SHUFFLE(2, 3, 0, 1))));
}
inline VI ior(VI a, VI b) { return {_mm512_or_si512(a.v, b.v)}; }
inline VI cvtt(VF a) { return {_mm512_cvttps_epi32(a.v)}; }
inline M flt(VF a, VF b) { return _mm512_cmp_ps_mask(a.v, b.v, _CMP_LT_OQ); }
inline VF fsel(M m, VF a, VF b) { return {_mm512_mask_blend_ps(m, b.v, a.v)}; }
inline VI isel(M m, VI a, VI b) { return {_mm512_mask_blend_epi32(m, b.v, a.v)}; }
inline VI add_one_where(M m, VI c) { return {_mm512_mask_add_epi32(c.v, m, c.v, _mm512_set1_epi32(1))}; }
// Bit k set when lane k is >= 0 (ordered: -0 yes, NaN no).
inline unsigned ge0_bits(VF a) { return _mm512_cmp_ps_mask(a.v, _mm512_setzero_ps(), _CMP_GE_OQ); }
// The low byte of each lane, 16 bytes to p.
inline void st8(std::uint8_t* p, VI a) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_cvtepi32_epi8(a.v)); }
// The low bytes of 64 lanes (a, b, c, d in order), four to a lane: lane i holds bytes 4i..4i+3.
inline VI bytes4(VI a, VI b, VI c, VI d) {
  __m512i r = _mm512_castsi128_si512(_mm512_cvtepi32_epi8(a.v));
  r = _mm512_inserti32x4(r, _mm512_cvtepi32_epi8(b.v), 1);
  r = _mm512_inserti32x4(r, _mm512_cvtepi32_epi8(c.v), 2);
  return {_mm512_inserti32x4(r, _mm512_cvtepi32_epi8(d.v), 3)};
}
#elif defined(__AVX2__)
struct M {
  __m256 lo, hi;
};
inline VF ld(const float* p) { return {_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8)}; }
inline VI bits(VF a) { return {_mm256_castps_si256(a.lo), _mm256_castps_si256(a.hi)}; }
inline VF from_bits(VI a) { return {_mm256_castsi256_ps(a.lo), _mm256_castsi256_ps(a.hi)}; }
inline VF fabs_(VF a) {
  const __m256 m = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
  return {_mm256_and_ps(a.lo, m), _mm256_and_ps(a.hi, m)};
}
inline VI imax(VI a, VI b) { return {_mm256_max_epi32(a.lo, b.lo), _mm256_max_epi32(a.hi, b.hi)}; }
inline VI imin(VI a, VI b) { return {_mm256_min_epi32(a.lo, b.lo), _mm256_min_epi32(a.hi, b.hi)}; }
inline std::int32_t hmax(VI a) {
  const __m256i m8 = _mm256_max_epi32(a.lo, a.hi);
  __m128i m = _mm_max_epi32(_mm256_castsi256_si128(m8), _mm256_extracti128_si256(m8, 1));
  m = _mm_max_epi32(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(1, 0, 3, 2)));
  m = _mm_max_epi32(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(2, 3, 0, 1)));
  return _mm_cvtsi128_si32(m);
}
inline VI ior(VI a, VI b) { return {_mm256_or_si256(a.lo, b.lo), _mm256_or_si256(a.hi, b.hi)}; }
inline VI cvtt(VF a) { return {_mm256_cvttps_epi32(a.lo), _mm256_cvttps_epi32(a.hi)}; }
inline M flt(VF a, VF b) { return {_mm256_cmp_ps(a.lo, b.lo, _CMP_LT_OQ), _mm256_cmp_ps(a.hi, b.hi, _CMP_LT_OQ)}; }
inline VF fsel(M m, VF a, VF b) { return {_mm256_blendv_ps(b.lo, a.lo, m.lo), _mm256_blendv_ps(b.hi, a.hi, m.hi)}; }
inline VI isel(M m, VI a, VI b) { return bits(fsel(m, from_bits(a), from_bits(b))); }
inline VI add_one_where(M m, VI c) {  // an all-ones lane is -1
  return {_mm256_sub_epi32(c.lo, _mm256_castps_si256(m.lo)), _mm256_sub_epi32(c.hi, _mm256_castps_si256(m.hi))};
}
inline unsigned ge0_bits(VF a) {
  const __m256 z = _mm256_setzero_ps();
  return static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(a.lo, z, _CMP_GE_OQ))) |
         (static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(a.hi, z, _CMP_GE_OQ))) << 8);
}
// 8 lanes to 4 words of 4 bytes: packus interleaves 128-bit halves, the permute restores order.
inline __m256i bytes4_half(__m256i a0, __m256i a1, __m256i b0, __m256i b1) {
  const __m256i w = _mm256_packus_epi16(_mm256_packus_epi32(a0, a1), _mm256_packus_epi32(b0, b1));
  return _mm256_permutevar8x32_epi32(w, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}
// Lane values must be 0..255 (unsigned saturation is then the low byte).
inline VI bytes4(VI a, VI b, VI c, VI d) {
  return {bytes4_half(a.lo, a.hi, b.lo, b.hi), bytes4_half(c.lo, c.hi, d.lo, d.hi)};
}
inline void st8(std::uint8_t* p, VI a) {
  const __m256i low = _mm256_set1_epi32(0xFF);
  const __m256i w = _mm256_packus_epi32(_mm256_and_si256(a.lo, low), _mm256_and_si256(a.hi, low));
  const __m128i b = _mm_packus_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_shuffle_epi32(b, _MM_SHUFFLE(3, 1, 2, 0)));
}
#elif defined(__aarch64__)
struct M {
  uint32x4_t v[4];
};
inline VF ld(const float* p) { return {vld1q_f32(p), vld1q_f32(p + 4), vld1q_f32(p + 8), vld1q_f32(p + 12)}; }
inline VI bits(VF a) {
  return map_i([&](int k) { return vreinterpretq_s32_f32(a.v[k]); });
}
inline VF from_bits(VI a) {
  return map_f([&](int k) { return vreinterpretq_f32_s32(a.v[k]); });
}
inline VF fabs_(VF a) {
  return map_f([&](int k) { return vabsq_f32(a.v[k]); });
}
inline VI imax(VI a, VI b) {
  return map_i([&](int k) { return vmaxq_s32(a.v[k], b.v[k]); });
}
inline VI imin(VI a, VI b) {
  return map_i([&](int k) { return vminq_s32(a.v[k], b.v[k]); });
}
inline std::int32_t hmax(VI a) { return vmaxvq_s32(vmaxq_s32(vmaxq_s32(a.v[0], a.v[1]), vmaxq_s32(a.v[2], a.v[3]))); }
inline VI ior(VI a, VI b) {
  return map_i([&](int k) { return vorrq_s32(a.v[k], b.v[k]); });
}
// Saturating where x86 gives INT32_MIN: the kernels only convert values below 2^23.
inline VI cvtt(VF a) {
  return map_i([&](int k) { return vcvtq_s32_f32(a.v[k]); });
}
inline M flt(VF a, VF b) {
  return {vcltq_f32(a.v[0], b.v[0]), vcltq_f32(a.v[1], b.v[1]), vcltq_f32(a.v[2], b.v[2]), vcltq_f32(a.v[3], b.v[3])};
}
inline VF fsel(M m, VF a, VF b) {
  return map_f([&](int k) { return vbslq_f32(m.v[k], a.v[k], b.v[k]); });
}
inline VI isel(M m, VI a, VI b) {
  return map_i([&](int k) { return vbslq_s32(m.v[k], a.v[k], b.v[k]); });
}
inline VI add_one_where(M m, VI c) {
  return map_i([&](int k) { return vsubq_s32(c.v[k], vreinterpretq_s32_u32(m.v[k])); });
}
inline unsigned ge0_bits(VF a) {
  static constexpr std::uint32_t kBit[4] = {1, 2, 4, 8};
  const uint32x4_t bit = vld1q_u32(kBit);
  unsigned r = 0;
  for (int k = 0; k < 4; ++k) r |= vaddvq_u32(vandq_u32(vcgezq_f32(a.v[k]), bit)) << (4 * k);
  return r;
}
inline uint8x16_t narrow(VI a) {
  const uint16x8_t lo =
      vcombine_u16(vmovn_u32(vreinterpretq_u32_s32(a.v[0])), vmovn_u32(vreinterpretq_u32_s32(a.v[1])));
  const uint16x8_t hi =
      vcombine_u16(vmovn_u32(vreinterpretq_u32_s32(a.v[2])), vmovn_u32(vreinterpretq_u32_s32(a.v[3])));
  return vcombine_u8(vmovn_u16(lo), vmovn_u16(hi));
}
inline void st8(std::uint8_t* p, VI a) { vst1q_u8(p, narrow(a)); }
inline VI bytes4(VI a, VI b, VI c, VI d) {
  return {vreinterpretq_s32_u8(narrow(a)), vreinterpretq_s32_u8(narrow(b)), vreinterpretq_s32_u8(narrow(c)),
          vreinterpretq_s32_u8(narrow(d))};
}
#else
#error "no lane operations for this ISA"
#endif

inline VI operator|(VI a, VI b) { return ior(a, b); }

// The block maximum of |x| (N values, a multiple of 16) as its bit pattern.
template <int N>
inline std::int32_t amax_bits(const float* x) {
  VI m = bits(fabs_(ld(x)));
  for (int i = 16; i < N; i += 16) m = imax(m, bits(fabs_(ld(x + i))));
  return hmax(m);
}
// A maximum the lanes handle: a finite normal float (so 1 / amax is finite and |x / amax| <= ~1).
inline bool plain_amax(std::int32_t b) { return b >= 0x00800000 && b < 0x7F800000; }
// The blocks check their values on the way (QuantizeKernel::checks_finite; fp4 too): the largest
// |x| as bits is 0x7F800000 or more exactly when a value is an infinity or a NaN. Such a block
// writes nothing and says so; the others below plain_amax (all zero, or subnormal) go to the
// reference.
inline bool non_finite_amax(std::int32_t b) { return b >= 0x7F800000; }

// Every block of the call (these formats take no importance); throws NonFiniteInput at the end
// when a block held a value that is not finite.
template <bool (*Block)(const float*, std::uint8_t*), std::size_t kQk, std::size_t kBytes>
void each_block(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row, const float*) {
  const std::size_t blocks = rows * (n_per_row / kQk);
  bool non_finite = false;
  for (std::size_t i = 0; i < blocks; ++i) non_finite |= Block(x + i * kQk, dst + i * kBytes);
  if (non_finite) throw NonFiniteInput{};
}

// v rounded half away from zero, for |v| < 2^23: v + copysign(0.49999997f, v), truncated (as
// rounding.hpp's round_away_i32 and lround_low32 there).
inline VI round_away(VF v) {
  const VI half = bits(vf_set1(0.49999997f));
  return cvtt(v + from_bits((bits(v) & vi_set1(INT32_MIN)) | half));
}

}  // namespace lbq

#ifndef ONNXQ_LBQ_OPS_ONLY
namespace lbq {

using quantize::detail::store_half;

// q2_0: level clamp(round(x * id), -1, 2) + 1, element j in bits 2(j % 4) of byte j / 4.
inline bool q2_0_block(const float* x, std::uint8_t* b) {
  const std::int32_t ab = amax_bits<64>(x);
  if (non_finite_amax(ab)) return true;
  if (!plain_amax(ab)) {
    quantize::quantize_q2_0(x, b, 1, 64, nullptr);
    return false;
  }
  const float amax = std::bit_cast<float>(ab);
  const VF id = vf_set1(1.0f / amax);
  store_half(b, amax);
  VI q[4];
  for (int i = 0; i < 4; ++i) q[i] = imin(imax(round_away(ld(x + 16 * i) * id), vi_set1(-1)), vi_set1(2)) + vi_set1(1);
  // Word i holds levels 4i..4i+3 in its bytes (each < 4): shift each into its bit pair of byte 0.
  const VI w = bytes4(q[0], q[1], q[2], q[3]);
  st8(b + 2, w | srli<6>(w) | srli<12>(w) | srli<18>(w));
  return false;
}

// Ternary trits (0, 1, 2) of 16 values: lroundf(x * id) + 1.
inline VI trits(const float* x, VF id) { return round_away(ld(x) * id) + vi_set1(1); }

// tq2_0: element 128h + 32n + m is bits 2n of byte 32h + m (lanes are m).
inline bool tq2_0_block(const float* x, std::uint8_t* b) {
  const std::int32_t ab = amax_bits<256>(x);
  if (non_finite_amax(ab)) return true;
  if (!plain_amax(ab)) {
    quantize::quantize_tq2_0(x, b, 1, 256, nullptr);
    return false;
  }
  const float d = std::bit_cast<float>(ab);
  const VF id = vf_set1(1.0f / d);
  for (int h = 0; h < 2; ++h) {
    for (int m = 0; m < 32; m += 16) {
      const float* p = x + 128 * h + m;
      const VI q = trits(p, id) | slli<2>(trits(p + 32, id)) | slli<4>(trits(p + 64, id)) | slli<6>(trits(p + 96, id));
      st8(b + 32 * h + m, q);
    }
  }
  store_half(b + 64, d);
  return false;
}

// Five trits (stride apart, the first most significant) as ceil(t * 256 / 243): t <= 242, so
// t * 256 + 242 < 2^16 and its quotient by 243 is (t * 256 + 242.5) / 243 truncated in floats
// (every step exact but the product, whose error < 2^-14 is far below the 0.5 / 243 margin).
inline VI pack5(const float* x, int stride, VF id) {
  VI t = trits(x, id);
  for (int n = 1; n < 5; ++n) t = t + t + t + trits(x + n * stride, id);
  return cvtt((to_f(t) * vf_set1(256.0f) + vf_set1(242.5f)) * vf_set1(1.0f / 243.0f));
}

// tq1_0: bytes m (0..31) take x[m + 32n], bytes 32 + m (0..15) x[160 + m + 16n], qh byte j x[240 + j + 4n].
inline bool tq1_0_block(const float* x, std::uint8_t* b) {
  const std::int32_t ab = amax_bits<256>(x);
  if (non_finite_amax(ab)) return true;
  if (!plain_amax(ab)) {
    quantize::quantize_tq1_0(x, b, 1, 256, nullptr);
    return false;
  }
  const float d = std::bit_cast<float>(ab);
  const VF id = vf_set1(1.0f / d);
  st8(b, pack5(x, 32, id));
  st8(b + 16, pack5(x + 16, 32, id));
  st8(b + 32, pack5(x + 160, 16, id));
  alignas(64) std::int32_t t[16];  // the last 16 trits; four bytes of four, in scalar code
  const VI tv = trits(x + 240, id);
  std::memcpy(t, &tv, sizeof t);
  for (int j = 0; j < 4; ++j) {
    const int q = ((t[j] * 3 + t[j + 4]) * 3 + t[j + 8]) * 3 + t[j + 12];
    b[48 + j] = static_cast<std::uint8_t>((q * 3 * 256 + 242) / 243);
  }
  store_half(b + 52, d);
  return false;
}

// q1_0: bits from ordered x >= 0 compares; the scale is the mean magnitude, a sum in scalar order.
// kQ1Group blocks accumulate side by side (independent chains, each in its own order; 4 measured best).
constexpr int kQ1Group = 4;
inline void q1_0_group(const float* x, std::uint8_t* b) {
  float sum[kQ1Group] = {};
  for (int j = 0; j < 128; ++j)
    for (int g = 0; g < kQ1Group; ++g)
      sum[g] += std::bit_cast<float>(std::bit_cast<std::uint32_t>(x[128 * g + j]) & 0x7FFFFFFFu);
  for (int g = 0; g < kQ1Group; ++g) {
    std::uint8_t* o = b + 18 * g;
    store_half(o, sum[g] / 128.0f);
    for (int k = 0; k < 8; ++k) {
      const unsigned m = ge0_bits(ld(x + 128 * g + 16 * k));
      o[2 + 2 * k] = static_cast<std::uint8_t>(m);
      o[3 + 2 * k] = static_cast<std::uint8_t>(m >> 8);
    }
  }
}

void q1_0_rows(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row, const float*) {
  const std::size_t blocks = rows * (n_per_row / 128);
  std::size_t i = 0;
  for (; i + kQ1Group <= blocks; i += kQ1Group) q1_0_group(x + i * 128, dst + i * 18);
  if (i < blocks) quantize::quantize_q1_0(x + i * 128, dst + i * 18, 1, (blocks - i) * 128, nullptr);  // the tail
}

}  // namespace lbq
}  // namespace

std::span<const QuantizeKernel> lowbit_quantizers() {
  using formats::FormatId;
  static constexpr QuantizeKernel kTable[] = {
      {formats::row(FormatId::q2_0).index, &lbq::each_block<lbq::q2_0_block, 64, 18>, true},
      {formats::row(FormatId::tq2_0).index, &lbq::each_block<lbq::tq2_0_block, 256, 66>, true},
      {formats::row(FormatId::tq1_0).index, &lbq::each_block<lbq::tq1_0_block, 256, 54>, true},
      {formats::row(FormatId::q1_0).index, &lbq::q1_0_rows},
  };
  return kTable;
}

}  // namespace onnxq::simd::ONNXQ_SIMD_NS
#else
}  // namespace
}  // namespace onnxq::simd::ONNXQ_SIMD_NS
#endif
