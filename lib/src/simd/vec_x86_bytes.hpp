// The 16-byte vectors and the half-to-float scalar of the vector layer, shared by the x86 paths
// (vec_avx2.hpp, vec_avx512.hpp include it): SSE on xmm registers, which every x86 path has. The
// families (*-inl.hpp) use bytes only through these functions, so that vec_neon.hpp can give the
// same interface on AArch64.
#pragma once

#ifndef ONNXQ_SIMD_NS
#error "include simd/vec_<isa>.hpp, not this file"
#endif

#include <immintrin.h>

#include <cstdint>

namespace onnxq::simd::ONNXQ_SIMD_NS {
namespace {

// 16 bytes; the families treat them as unsigned unless they widen them with vi_i8.
using VB = __m128i;

inline VB load16(const std::uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
// 8 bytes in the low half, zeros above.
inline VB load8(const std::uint8_t* p) { return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)); }
inline VB set1_bytes(std::uint8_t x) { return _mm_set1_epi8(static_cast<char>(x)); }
// The 4 bytes of w, little-endian, four times.
inline VB bytes_u32x4(std::uint32_t w) { return _mm_set1_epi32(static_cast<int>(w)); }
// The 8 bytes of lo, then the 8 bytes of hi, little-endian.
inline VB bytes_u64x2(std::uint64_t lo, std::uint64_t hi) {
  return _mm_set_epi64x(static_cast<long long>(hi), static_cast<long long>(lo));
}
inline VB add_bytes(VB a, VB b) { return _mm_add_epi8(a, b); }
inline VB sub_bytes(VB a, VB b) { return _mm_sub_epi8(a, b); }
inline VB or_bytes(VB a, VB b) { return _mm_or_si128(a, b); }
// Each byte shifted left by K; callers shift only bits that stay inside their byte (x86 shifts
// 16-bit words).
template <int K>
inline VB shl_bytes(VB x) {
  return _mm_slli_epi16(x, K);
}
inline VB nib_lo(VB x) { return _mm_and_si128(x, _mm_set1_epi8(15)); }
inline VB nib_hi(VB x) { return _mm_and_si128(_mm_srli_epi16(x, 4), _mm_set1_epi8(15)); }
// (x >> n) & mask on each byte, n a run-time shift count (mask keeps only bits of the byte itself).
inline VB bits_of(VB x, int n, int mask) {
  return _mm_and_si128(_mm_srl_epi16(x, _mm_cvtsi32_si128(n)), _mm_set1_epi8(static_cast<char>(mask)));
}
// The low 8 bytes of a, then the low 8 bytes of b.
inline VB join_lo8(VB a, VB b) { return _mm_unpacklo_epi64(a, b); }
// table[c] for 16 codes c < 16, table 16 bytes in memory.
inline VB lookup16(const void* table, VB codes) {
  return _mm_shuffle_epi8(_mm_loadu_si128(static_cast<const __m128i*>(table)), codes);
}

// binary16 to float32 with vcvtph2ps: exact, subnormals and NaN included (spec §3.1).
inline float half_bits_to_f32(std::uint32_t h) {
  return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(static_cast<int>(h))));
}

}  // namespace
}  // namespace onnxq::simd::ONNXQ_SIMD_NS
