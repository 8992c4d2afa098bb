// Unpack row kernels for AVX-512 F/BW/VL without VBMI (compiled with this folder's AVX-512
// flags, as the decoders beside it): each 128-bit lane makes 16 codes from the 2*BITS bytes vpermd brings into it;
// vpshufb gives every code a 16-bit window, vpsrlvw aligns it, vpackuswb narrows to bytes.
// Row ends use masked loads and stores. Internal linkage except the exported table; no std::
// inline templates (their out-of-line copies could be shared with code compiled without AVX-512).
#if !defined(__AVX512F__) || !defined(__AVX512BW__)
#error "simd/avx512/unpack.cpp needs -mavx512f -mavx512bw"
#endif

#include <immintrin.h>

#include <cstring>

#include "simd/unpack_kernels.hpp"

namespace onnxq::simd {
namespace {

inline __mmask64 first_bytes(std::uint64_t n) { return n >= 64 ? ~__mmask64{0} : (__mmask64{1} << n) - 1; }

template <unsigned BITS>
struct BitsTables {
  std::uint32_t dwords[16]{};                   // lane k <- the 4 dwords from dword floor(BITS*k/2)
  std::uint8_t lo_codes[64]{}, hi_codes[64]{};  // per lane: windows of codes 0..7 / 8..15
  std::uint16_t shift_lo[32]{}, shift_hi[32]{};
  constexpr BitsTables() {
    for (unsigned k = 0; k < 4; ++k) {
      const unsigned base = BITS * k / 2, off = 2 * BITS * k - 4 * base;  // lane k's first byte: 2*BITS*k
      for (unsigned i = 0; i < 4; ++i) dwords[4 * k + i] = base + i;
      for (unsigned w = 0; w < 8; ++w)
        for (unsigned half = 0; half < 2; ++half) {
          const unsigned j = w + 8 * half, first = j * BITS;
          const unsigned lo = off + first / 8;
          const unsigned hi = first % 8 + BITS > 8 ? lo + 1 : 0x80;  // 0x80: zero, the code fits in one byte
          std::uint8_t* shuf = half ? hi_codes : lo_codes;
          shuf[16 * k + 2 * w] = static_cast<std::uint8_t>(lo);
          shuf[16 * k + 2 * w + 1] = static_cast<std::uint8_t>(hi);
          (half ? shift_hi : shift_lo)[8 * k + w] = static_cast<std::uint16_t>(first % 8);
        }
    }
  }
};

// STREAM: non-temporal stores for outputs far larger than the caches, once the row's output
// reaches a 64-byte boundary at a whole input byte (a head of a multiple of 8 codes).
template <unsigned BITS, bool STREAM>
void bits_row(const std::uint8_t* in, std::uint8_t* out, std::uint64_t count, std::uint64_t in_bytes) {
  if constexpr (BITS == 8 && !STREAM) {
    std::memcpy(out, in, count);
  } else {
    static constexpr BitsTables<BITS> t;
    const __m512i dwords = _mm512_loadu_si512(t.dwords);
    const __m512i lo_codes = _mm512_loadu_si512(t.lo_codes), hi_codes = _mm512_loadu_si512(t.hi_codes);
    const __m512i shift_lo = _mm512_loadu_si512(t.shift_lo), shift_hi = _mm512_loadu_si512(t.shift_hi);
    const __m512i mask = _mm512_set1_epi16((1 << BITS) - 1);
    auto codes64 = [&](__m512i words) {
      const __m512i lanes = _mm512_permutexvar_epi32(dwords, words);
      const __m512i a = _mm512_and_si512(_mm512_srlv_epi16(_mm512_shuffle_epi8(lanes, lo_codes), shift_lo), mask);
      const __m512i b = _mm512_and_si512(_mm512_srlv_epi16(_mm512_shuffle_epi8(lanes, hi_codes), shift_hi), mask);
      return _mm512_packus_epi16(a, b);
    };
    constexpr std::uint64_t step = 8 * BITS;  // input bytes per 64 codes
    std::uint64_t c = 0, pos = 0;
    auto masked = [&](std::uint64_t end) {  // codes c..end (at most 64), reading only the row's bytes
      const __m512i words = _mm512_maskz_loadu_epi8(first_bytes(in_bytes - pos), in + pos);
      _mm512_mask_storeu_epi8(out + c, first_bytes(end - c), codes64(words));
    };
    if constexpr (STREAM) {
      const std::uint64_t head = (64 - reinterpret_cast<std::uintptr_t>(out) % 64) % 64;
      if (head % 8 == 0 && head + 64 <= count) {
        if (head) masked(head);
        c = head;
        pos = head / 8 * BITS;
        for (; c + 64 <= count && pos + 64 <= in_bytes; c += 64, pos += step)
          _mm512_stream_si512(reinterpret_cast<__m512i*>(out + c), codes64(_mm512_loadu_si512(in + pos)));
        _mm_sfence();
      }
    }
    for (; c + 64 <= count && pos + 64 <= in_bytes; c += 64, pos += step)
      _mm512_storeu_si512(out + c, codes64(_mm512_loadu_si512(in + pos)));
    for (; c < count; c += 64, pos += step) masked(count);
  }
}

}  // namespace

namespace avx512 {
const UnpackKernels& unpack_kernels() {
  static const UnpackKernels k{"avx512", ONNXQ_UNPACK_BITS_ROWS(bits_row, false),
                               ONNXQ_UNPACK_BITS_ROWS(bits_row, true),
                               // Every CPU with this path has AVX2 (CpuFeatures::avx512 implies avx2).
                               avx2::unpack_kernels().radix3, avx2::unpack_kernels().radix3_stream};
  return k;
}
}  // namespace avx512

}  // namespace onnxq::simd
