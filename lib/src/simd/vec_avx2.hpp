// 16-lane float32/int32 vectors for the AVX2 (+FMA, F16C) path: two ymm registers each.
// Same interface as vec_avx512.hpp; internal linkage inside onnxq::simd::avx2.
#pragma once

#if !defined(__AVX2__) || !defined(__F16C__) || !defined(__FMA__)
#error "vec_avx2.hpp needs -mavx2 -mfma -mf16c"
#endif

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#define ONNXQ_SIMD_NS avx2

#include "simd/vec_x86_bytes.hpp"

namespace onnxq::simd::avx2 {
namespace {

struct VF {
  __m256 lo, hi;
};
struct VI {
  __m256i lo, hi;
};

inline VF vf_set1(float x) { return {_mm256_set1_ps(x), _mm256_set1_ps(x)}; }
inline VF vf_set2(float a, float b) { return {_mm256_set1_ps(a), _mm256_set1_ps(b)}; }
inline VF operator*(VF a, VF b) { return {_mm256_mul_ps(a.lo, b.lo), _mm256_mul_ps(a.hi, b.hi)}; }
inline VF operator+(VF a, VF b) { return {_mm256_add_ps(a.lo, b.lo), _mm256_add_ps(a.hi, b.hi)}; }
inline VF operator-(VF a, VF b) { return {_mm256_sub_ps(a.lo, b.lo), _mm256_sub_ps(a.hi, b.hi)}; }

// All-ones in lane k (0..7) when bit k of bits is set.
inline __m256i lanes_of_bits8(unsigned bits) {
  const __m256i sel = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(static_cast<int>(bits & 0xFF)), sel), sel);
}
inline VF negate_where(VF x, unsigned mask) {
  const __m256 sign = _mm256_castsi256_ps(_mm256_set1_epi32(INT32_MIN));
  const __m256 mlo = _mm256_and_ps(_mm256_castsi256_ps(lanes_of_bits8(mask)), sign);
  const __m256 mhi = _mm256_and_ps(_mm256_castsi256_ps(lanes_of_bits8(mask >> 8)), sign);
  return {_mm256_xor_ps(x.lo, mlo), _mm256_xor_ps(x.hi, mhi)};
}
// Flips sign bits: x xor (8 lanes at a, 8 lanes at b) (sign-mask rows of float_grids()).
inline VF xor_rows8(VF x, const float* a, const float* b) {
  return {_mm256_xor_ps(x.lo, _mm256_loadu_ps(a)), _mm256_xor_ps(x.hi, _mm256_loadu_ps(b))};
}
// No mask registers: a sign mask in memory is cheaper as a row of lane masks than bit tests.
constexpr bool kMaskRegisters = false;
inline VF select_bits(unsigned mask, VF a, VF b) {
  return {_mm256_blendv_ps(b.lo, a.lo, _mm256_castsi256_ps(lanes_of_bits8(mask))),
          _mm256_blendv_ps(b.hi, a.hi, _mm256_castsi256_ps(lanes_of_bits8(mask >> 8)))};
}

// 16 floats from two rows of 8 / four rows of 4 (anywhere in memory).
inline VF vf_rows8(const float* a, const float* b) { return {_mm256_loadu_ps(a), _mm256_loadu_ps(b)}; }
inline VF vf_rows4(const float* a, const float* b, const float* c, const float* d) {
  return {_mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(a)), _mm_loadu_ps(b), 1),
          _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(c)), _mm_loadu_ps(d), 1)};
}
inline void store_f(float* p, VF v) {
  _mm256_storeu_ps(p, v.lo);
  _mm256_storeu_ps(p + 8, v.hi);
}
// Byte k is value's byte k where bit k of mask is set, else 0.
inline __m128i bytes_where(unsigned mask, __m128i value) {
  const __m128i spread = _mm_shuffle_epi8(_mm_cvtsi32_si128(static_cast<int>(mask)),
                                          _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1));
  const __m128i bit = _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128);
  return _mm_and_si128(_mm_cmpeq_epi8(_mm_and_si128(spread, bit), bit), value);
}

inline VI vi_set1(std::int32_t x) { return {_mm256_set1_epi32(x), _mm256_set1_epi32(x)}; }
inline VI vi_load(const std::int32_t* p) {
  return {_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)),
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 8))};
}
inline VI vi_u8(__m128i b) { return {_mm256_cvtepu8_epi32(b), _mm256_cvtepu8_epi32(_mm_srli_si128(b, 8))}; }
inline VI vi_i8(__m128i b) { return {_mm256_cvtepi8_epi32(b), _mm256_cvtepi8_epi32(_mm_srli_si128(b, 8))}; }
inline VI vi_u16(__m256i h) {
  return {_mm256_cvtepu16_epi32(_mm256_castsi256_si128(h)), _mm256_cvtepu16_epi32(_mm256_extracti128_si256(h, 1))};
}
inline VI operator&(VI a, VI b) { return {_mm256_and_si256(a.lo, b.lo), _mm256_and_si256(a.hi, b.hi)}; }
inline VI operator+(VI a, VI b) { return {_mm256_add_epi32(a.lo, b.lo), _mm256_add_epi32(a.hi, b.hi)}; }
inline VI operator-(VI a, VI b) { return {_mm256_sub_epi32(a.lo, b.lo), _mm256_sub_epi32(a.hi, b.hi)}; }
inline VI mullo(VI a, VI b) { return {_mm256_mullo_epi32(a.lo, b.lo), _mm256_mullo_epi32(a.hi, b.hi)}; }
inline VI srlv(VI a, VI c) { return {_mm256_srlv_epi32(a.lo, c.lo), _mm256_srlv_epi32(a.hi, c.hi)}; }
template <int K>
inline VI srli(VI a) {
  return {_mm256_srli_epi32(a.lo, K), _mm256_srli_epi32(a.hi, K)};
}
template <int K>
inline VI slli(VI a) {
  return {_mm256_slli_epi32(a.lo, K), _mm256_slli_epi32(a.hi, K)};
}
inline VF to_f(VI a) { return {_mm256_cvtepi32_ps(a.lo), _mm256_cvtepi32_ps(a.hi)}; }

inline VF load_f32(const std::uint8_t* p) {
  return {_mm256_loadu_ps(reinterpret_cast<const float*>(p)), _mm256_loadu_ps(reinterpret_cast<const float*>(p) + 8)};
}
inline VF load_f16(const std::uint8_t* p) {
  return {_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))),
          _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16)))};
}
inline VF load_bf16(const std::uint8_t* p) {
  const VI w = vi_u16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  return {_mm256_castsi256_ps(_mm256_slli_epi32(w.lo, 16)), _mm256_castsi256_ps(_mm256_slli_epi32(w.hi, 16))};
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
    if constexpr (Stream) {
      _mm256_stream_ps(p + i, v.lo);
      _mm256_stream_ps(p + i + 8, v.hi);
    } else {
      _mm256_storeu_ps(p + i, v.lo);
      _mm256_storeu_ps(p + i + 8, v.hi);
    }
  }
  void finish() const {
    if constexpr (Stream) _mm_sfence();
  }
};

// F16C vcvtps2ph with an explicit round-to-nearest-even immediate (spec §4).
inline __m256i to_f16(VF v) {
  return _mm256_set_m128i(_mm256_cvtps_ph(v.hi, _MM_FROUND_TO_NEAREST_INT),
                          _mm256_cvtps_ph(v.lo, _MM_FROUND_TO_NEAREST_INT));
}

inline __m256i bf16_lanes(__m256 x) {
  const __m256i u = _mm256_castps_si256(x);
  // Both sides are non-negative as int32, so a signed compare finds NaN magnitudes.
  const __m256i nan =
      _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7FFFFFFF)), _mm256_set1_epi32(0x7F800000));
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  const __m256i r = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7FFF)), lsb), 16);
  const __m256i q = _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x0040));
  return _mm256_blendv_epi8(r, q, nan);
}
// The integer formula of spec §4; all lanes are <= 0xFFFF, so unsigned packing is exact.
inline __m256i to_bf16(VF v) {
  const __m256i packed = _mm256_packus_epi32(bf16_lanes(v.lo), bf16_lanes(v.hi));  // per 128-bit lane
  return _mm256_permute4x64_epi64(packed, 0xD8);
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
    const __m256d a = _mm256_cvtps_pd(_mm256_castps256_ps128(v.lo)),
                  b = _mm256_cvtps_pd(_mm256_extractf128_ps(v.lo, 1));
    const __m256d c = _mm256_cvtps_pd(_mm256_castps256_ps128(v.hi)),
                  d = _mm256_cvtps_pd(_mm256_extractf128_ps(v.hi, 1));
    if constexpr (Stream) {
      _mm256_stream_pd(p + i, a);
      _mm256_stream_pd(p + i + 4, b);
      _mm256_stream_pd(p + i + 8, c);
      _mm256_stream_pd(p + i + 12, d);
    } else {
      _mm256_storeu_pd(p + i, a);
      _mm256_storeu_pd(p + i + 4, b);
      _mm256_storeu_pd(p + i + 8, c);
      _mm256_storeu_pd(p + i + 12, d);
    }
  }
  void finish() const {
    if constexpr (Stream) _mm_sfence();
  }
};

}  // namespace
}  // namespace onnxq::simd::avx2
