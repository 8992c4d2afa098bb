// Unpack row kernels for AVX2 (compiled with the AVX2 flags of the dequant decoders): each 128-bit
// lane makes 16 codes from the 2*BITS bytes loaded into it; vpshufb gives every code a 16-bit
// window, vpmullw by 2^(8 - shift) moves the code to the window's high byte (AVX2 has no per-word
// shift), and vpackuswb narrows. Row ends go to the portable kernel. Internal linkage except the
// exported table; no std:: inline templates (their out-of-line copies could be shared).
#if !defined(__AVX2__)
#error "unpack_avx2.cpp needs -mavx2"
#endif

#include <immintrin.h>

#include <cstring>

#include "ops/unpack_kernels.hpp"

namespace onnxq::ops_detail {
namespace {

template <unsigned BITS>
struct BitsTables {
  std::uint8_t lo_codes[32]{}, hi_codes[32]{};  // per lane: windows of codes 0..7 / 8..15
  std::uint16_t mul_lo[16]{}, mul_hi[16]{};
  constexpr BitsTables() {
    for (unsigned k = 0; k < 2; ++k)
      for (unsigned w = 0; w < 8; ++w)
        for (unsigned half = 0; half < 2; ++half) {
          const unsigned j = w + 8 * half, first = j * BITS;
          const unsigned lo = first / 8;
          const unsigned hi = first % 8 + BITS > 8 ? lo + 1 : 0x80;  // 0x80: zero, the code fits in one byte
          std::uint8_t* shuf = half ? hi_codes : lo_codes;
          shuf[16 * k + 2 * w] = static_cast<std::uint8_t>(lo);
          shuf[16 * k + 2 * w + 1] = static_cast<std::uint8_t>(hi);
          (half ? mul_hi : mul_lo)[8 * k + w] = static_cast<std::uint16_t>(1u << (8 - first % 8));
        }
  }
};

template <unsigned BITS>
void bits_row(const std::uint8_t* in, std::uint8_t* out, std::uint64_t count, std::uint64_t in_bytes) {
  if constexpr (BITS == 8) {
    std::memcpy(out, in, count);
  } else {
    static constexpr BitsTables<BITS> t;
    const __m256i lo_codes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t.lo_codes));
    const __m256i hi_codes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t.hi_codes));
    const __m256i mul_lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t.mul_lo));
    const __m256i mul_hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t.mul_hi));
    const __m256i mask = _mm256_set1_epi8(static_cast<char>((1u << BITS) - 1));
    constexpr std::uint64_t step = 4 * BITS;  // input bytes per 32 codes; lane 1 starts at 2*BITS
    std::uint64_t c = 0, pos = 0;
    for (; c + 32 <= count && pos + 2 * BITS + 16 <= in_bytes; c += 32, pos += step) {
      const __m256i lanes = _mm256_inserti128_si256(
          _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + pos))),
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + pos + 2 * BITS)), 1);
      const __m256i a = _mm256_srli_epi16(_mm256_mullo_epi16(_mm256_shuffle_epi8(lanes, lo_codes), mul_lo), 8);
      const __m256i b = _mm256_srli_epi16(_mm256_mullo_epi16(_mm256_shuffle_epi8(lanes, hi_codes), mul_hi), 8);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + c), _mm256_and_si256(_mm256_packus_epi16(a, b), mask));
    }
    if (c < count) unpack_bits_row_portable(BITS, in + pos, out + c, count - c, in_bytes - pos);
  }
}

}  // namespace

const UnpackKernels& avx2_unpack_kernels() {
  static const UnpackKernels k{"avx2",
                               {nullptr, &bits_row<1>, &bits_row<2>, &bits_row<3>, &bits_row<4>, &bits_row<5>,
                                &bits_row<6>, &bits_row<7>, &bits_row<8>},
                               {},
                               nullptr};
  return k;
}

}  // namespace onnxq::ops_detail
