// 16-lane float32/int32 vectors for the AVX-512 (F/BW/VL) path: one zmm register each.
// The kernels (*-inl.hpp) are written once against this interface and vec_avx2.hpp.
// Everything here has internal linkage inside onnxq::simd::avx512 (or avx512vbmi), so no inline function
// compiled with AVX-512 flags can be picked by the linker for code that runs elsewhere.
#pragma once

#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VL__) || !defined(__F16C__)
#error "vec_avx512.hpp needs -mavx512f -mavx512bw -mavx512vl -mf16c"
#endif

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#ifndef ONNXQ_SIMD_NS  // lib/src/simd/avx512vbmi/ sources name their own namespace
#define ONNXQ_SIMD_NS avx512
#endif

#include "simd/vec_x86_bytes.hpp"

namespace onnxq::simd::ONNXQ_SIMD_NS {
namespace {

struct VF {
  __m512 v;
};
struct VI {
  __m512i v;
};

inline VF vf_set1(float x) { return {_mm512_set1_ps(x)}; }
// Lanes 0..7 get a, lanes 8..15 get b.
inline VF vf_set2(float a, float b) { return {_mm512_mask_blend_ps(0xFF00, _mm512_set1_ps(a), _mm512_set1_ps(b))}; }
inline VF operator*(VF a, VF b) { return {_mm512_mul_ps(a.v, b.v)}; }
inline VF operator+(VF a, VF b) { return {_mm512_add_ps(a.v, b.v)}; }
inline VF operator-(VF a, VF b) { return {_mm512_sub_ps(a.v, b.v)}; }
// Flips the sign of lane k when bit k of mask is set (exactly x * -1.0 for non-NaN x).
inline VF negate_where(VF x, unsigned mask) {
  const __m512i u = _mm512_castps_si512(x.v);
  return {_mm512_castsi512_ps(_mm512_mask_xor_epi32(u, static_cast<__mmask16>(mask), u, _mm512_set1_epi32(INT32_MIN)))};
}
// Mask registers: 16 sign bits in memory become a k mask in one move.
constexpr bool kMaskRegisters = true;
// Lane k is a when bit k of mask is set, else b.
inline VF select_bits(unsigned mask, VF a, VF b) {
  return {_mm512_mask_blend_ps(static_cast<__mmask16>(mask), b.v, a.v)};
}

// 16 floats from two rows of 8 / four rows of 4 (anywhere in memory).
inline VF vf_rows8(const float* a, const float* b) {
  const __m512d lo = _mm512_castps_pd(_mm512_castps256_ps512(_mm256_loadu_ps(a)));
  return {_mm512_castpd_ps(_mm512_insertf64x4(lo, _mm256_castps_pd(_mm256_loadu_ps(b)), 1))};
}
inline VF vf_rows4(const float* a, const float* b, const float* c, const float* d) {
  __m512 v = _mm512_castps128_ps512(_mm_loadu_ps(a));
  v = _mm512_insertf32x4(v, _mm_loadu_ps(b), 1);
  v = _mm512_insertf32x4(v, _mm_loadu_ps(c), 2);
  return {_mm512_insertf32x4(v, _mm_loadu_ps(d), 3)};
}
inline void store_f(float* p, VF v) { _mm512_storeu_ps(p, v.v); }
// Flips sign bits: x xor (8 lanes at a, 8 lanes at b) (sign-mask rows of float_grids()).
inline VF xor_rows8(VF x, const float* a, const float* b) {
  return {_mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x.v), _mm512_castps_si512(vf_rows8(a, b).v)))};
}
// Byte k is value's byte k where bit k of mask is set, else 0.
inline __m128i bytes_where(unsigned mask, __m128i value) {
  return _mm_maskz_mov_epi8(static_cast<__mmask16>(mask), value);
}

inline VI vi_set1(std::int32_t x) { return {_mm512_set1_epi32(x)}; }
inline VI vi_load(const std::int32_t* p) { return {_mm512_loadu_si512(p)}; }
inline VI vi_u8(__m128i b) { return {_mm512_cvtepu8_epi32(b)}; }
inline VI vi_i8(__m128i b) { return {_mm512_cvtepi8_epi32(b)}; }
inline VI vi_u16(__m256i h) { return {_mm512_cvtepu16_epi32(h)}; }
inline VI operator&(VI a, VI b) { return {_mm512_and_si512(a.v, b.v)}; }
inline VI operator+(VI a, VI b) { return {_mm512_add_epi32(a.v, b.v)}; }
inline VI operator-(VI a, VI b) { return {_mm512_sub_epi32(a.v, b.v)}; }
inline VI mullo(VI a, VI b) { return {_mm512_mullo_epi32(a.v, b.v)}; }
inline VI srlv(VI a, VI counts) { return {_mm512_srlv_epi32(a.v, counts.v)}; }
template <int K>
inline VI srli(VI a) {
  return {_mm512_srli_epi32(a.v, K)};
}
template <int K>
inline VI slli(VI a) {
  return {_mm512_slli_epi32(a.v, K)};
}
inline VF to_f(VI a) { return {_mm512_cvtepi32_ps(a.v)}; }

// Loads of 16 plain values.
inline VF load_f32(const std::uint8_t* p) { return {_mm512_loadu_ps(p)}; }
inline VF load_f16(const std::uint8_t* p) {
  return {_mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)))};
}
inline VF load_bf16(const std::uint8_t* p) {
  return {_mm512_castsi512_ps(
      _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))), 16))};
}

// ---- Output writers: put(i, v) writes elements i..i+15 (spec §4 conversions). ----

template <bool Stream>
struct OutF32 {
  static constexpr bool kStreaming = Stream;
  using Regular = OutF32<false>;
  static constexpr std::size_t kElementBytes = 4;
  float* p;
  explicit OutF32(void* dst) : p(static_cast<float*>(dst)) {}
  void put(std::size_t i, VF v) const {
    if constexpr (Stream)
      _mm512_stream_ps(p + i, v.v);
    else
      _mm512_storeu_ps(p + i, v.v);
  }
  void finish() const {
    if constexpr (Stream) _mm_sfence();
  }
};

// vcvtps2ph with an explicit round-to-nearest-even immediate: exact IEEE RNE, keeps
// subnormals (FTZ does not apply), overflow to inf, NaN stays a quiet NaN.
inline __m256i to_f16(VF v) { return _mm512_cvtps_ph(v.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }

// The integer formula of spec §4 (vcvtneps2bf16 would flush subnormals).
inline __m256i to_bf16(VF v) {
  const __m512i u = _mm512_castps_si512(v.v);
  const __m512i top = _mm512_srli_epi32(u, 16);
  const __m512i lsb = _mm512_and_si512(top, _mm512_set1_epi32(1));
  const __m512i r = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7FFF)), lsb), 16);
  const __mmask16 nan = _mm512_cmp_ps_mask(v.v, v.v, _CMP_UNORD_Q);  // quiet compare: no exception
  return _mm512_cvtepi32_epi16(_mm512_mask_or_epi32(r, nan, top, _mm512_set1_epi32(0x0040)));
}

template <bool Stream>
struct OutF16 {
  static constexpr bool kStreaming = Stream;
  using Regular = OutF16<false>;
  static constexpr std::size_t kElementBytes = 2;
  std::uint16_t* p;
  explicit OutF16(void* dst) : p(static_cast<std::uint16_t*>(dst)) {}
  void put(std::size_t i, VF v) const {
    auto* at = reinterpret_cast<__m256i*>(p + i);
    if constexpr (Stream)
      _mm256_stream_si256(at, to_f16(v));
    else
      _mm256_storeu_si256(at, to_f16(v));
  }
  void finish() const {
    if constexpr (Stream) _mm_sfence();
  }
};

template <bool Stream>
struct OutBF16 {
  static constexpr bool kStreaming = Stream;
  using Regular = OutBF16<false>;
  static constexpr std::size_t kElementBytes = 2;
  std::uint16_t* p;
  explicit OutBF16(void* dst) : p(static_cast<std::uint16_t*>(dst)) {}
  void put(std::size_t i, VF v) const {
    auto* at = reinterpret_cast<__m256i*>(p + i);
    if constexpr (Stream)
      _mm256_stream_si256(at, to_bf16(v));
    else
      _mm256_storeu_si256(at, to_bf16(v));
  }
  void finish() const {
    if constexpr (Stream) _mm_sfence();
  }
};

template <bool Stream>
struct OutF64 {
  static constexpr bool kStreaming = Stream;
  using Regular = OutF64<false>;
  static constexpr std::size_t kElementBytes = 8;
  double* p;
  explicit OutF64(void* dst) : p(static_cast<double*>(dst)) {}
  void put(std::size_t i, VF v) const {
    const __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(v.v));
    const __m512d hi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v.v), 1)));
    if constexpr (Stream) {
      _mm512_stream_pd(p + i, lo);
      _mm512_stream_pd(p + i + 8, hi);
    } else {
      _mm512_storeu_pd(p + i, lo);
      _mm512_storeu_pd(p + i + 8, hi);
    }
  }
  void finish() const {
    if constexpr (Stream) _mm_sfence();
  }
};

}  // namespace
}  // namespace onnxq::simd::ONNXQ_SIMD_NS
