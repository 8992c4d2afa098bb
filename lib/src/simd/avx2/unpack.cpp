// Unpack row kernels for AVX2 (compiled with this folder's flags, as the decoders beside it): each 128-bit
// lane makes 16 codes from the 2*BITS bytes loaded into it; vpshufb gives every code a 16-bit
// window, vpmullw by 2^(8 - shift) moves the code to the window's high byte (AVX2 has no per-word
// shift), and vpackuswb narrows. (3, 5) uses 16-bit multiplies (below); the AVX-512 BW set shares
// it. Row ends go to the portable kernel. Internal linkage except the exported table; no std::
// inline templates (their out-of-line copies could be shared).
#if !defined(__AVX2__)
#error "simd/avx2/unpack.cpp needs -mavx2"
#endif

#include <immintrin.h>

#include <cstring>

#include "simd/unpack_kernels.hpp"

namespace onnxq::simd {
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

// STREAM: non-temporal stores for outputs far larger than the caches, from the first 32-byte
// boundary of the row's output that falls on a whole input byte (a head of a multiple of 8 codes).
template <unsigned BITS, bool STREAM>
void bits_row(const std::uint8_t* in, std::uint8_t* out, std::uint64_t count, std::uint64_t in_bytes) {
  if constexpr (BITS == 8 && !STREAM) {
    std::memcpy(out, in, count);
  } else {
    static constexpr BitsTables<BITS> t;
    const __m256i lo_codes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t.lo_codes));
    const __m256i hi_codes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t.hi_codes));
    const __m256i mul_lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t.mul_lo));
    const __m256i mul_hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t.mul_hi));
    const __m256i mask = _mm256_set1_epi8(static_cast<char>((1u << BITS) - 1));
    auto codes32 = [&](const std::uint8_t* p) {  // lane 1 starts at 2*BITS bytes
      const __m256i lanes =
          _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))),
                                  _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 * BITS)), 1);
      const __m256i a = _mm256_srli_epi16(_mm256_mullo_epi16(_mm256_shuffle_epi8(lanes, lo_codes), mul_lo), 8);
      const __m256i b = _mm256_srli_epi16(_mm256_mullo_epi16(_mm256_shuffle_epi8(lanes, hi_codes), mul_hi), 8);
      return _mm256_and_si256(_mm256_packus_epi16(a, b), mask);
    };
    constexpr std::uint64_t step = 4 * BITS;  // input bytes per 32 codes
    std::uint64_t c = 0, pos = 0;
    if constexpr (STREAM) {
      const std::uint64_t head = (32 - reinterpret_cast<std::uintptr_t>(out) % 32) % 32;
      if (head % 8 == 0 && head + 32 <= count) {
        if (head) unpack_bits_row_portable(BITS, in, out, head, head / 8 * BITS);
        c = head;
        pos = head / 8 * BITS;
        for (; c + 32 <= count && pos + 2 * BITS + 16 <= in_bytes; c += 32, pos += step)
          _mm256_stream_si256(reinterpret_cast<__m256i*>(out + c), codes32(in + pos));
        _mm_sfence();
      }
    }
    for (; c + 32 <= count && pos + 2 * BITS + 16 <= in_bytes; c += 32, pos += step)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + c), codes32(in + pos));
    if (c < count) unpack_bits_row_portable(BITS, in + pos, out + c, count - c, in_bytes - pos);
  }
}

// (3, 5), as in simd/avx512vbmi/unpack.cpp: q = ceil(256 v / 243) (here v + ((13 v + 242) * 270 >> 16),
// exact for v < 243), then digit d_i = ((q * 3^(4-i)) mod 256) * 3 >> 8. 32 groups make 160 codes
// in five vectors; vpshufb places the groups in-lane (lanes 0..4 of the 160 codes use groups 0..15).
struct Radix3Tables {
  std::uint8_t group[5][32]{};
  std::uint16_t even[5][16]{}, odd[5][16]{};  // 3^(4-i) mod 256, placed for the multiply
  constexpr Radix3Tables() {
    constexpr unsigned pow3[5] = {81, 27, 9, 3, 1};
    for (unsigned m = 0; m < 5; ++m)
      for (unsigned t = 0; t < 32; ++t) {
        const unsigned p = 32 * m + t, lane = p / 16;
        group[m][t] = static_cast<std::uint8_t>(p / 5 - (lane < 5 ? 0 : 16));
        const unsigned c = pow3[p % 5];
        if (t % 2 == 0)
          even[m][t / 2] = static_cast<std::uint16_t>(c << 8);
        else
          odd[m][t / 2] = static_cast<std::uint16_t>(c);
      }
  }
};

inline __m256i load256(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }

// STREAM: non-temporal stores when the row's output is 32-byte aligned (160-code blocks keep it so).
template <bool STREAM>
bool radix3_row(const std::uint8_t* in, std::uint8_t* out, std::uint64_t count) {
  static constexpr Radix3Tables t;
  const bool stream = STREAM && reinterpret_cast<std::uintptr_t>(out) % 32 == 0;
  const __m256i low = _mm256_set1_epi16(0x00FF), high = _mm256_set1_epi16(static_cast<short>(0xFF00));
  const __m256i three = _mm256_set1_epi16(3), limit = _mm256_set1_epi8(static_cast<char>(242));
  const __m256i c13 = _mm256_set1_epi16(13), c242 = _mm256_set1_epi16(242), c270 = _mm256_set1_epi16(270);
  auto scaled = [&](__m256i v) {
    return _mm256_add_epi16(v, _mm256_mulhi_epu16(_mm256_add_epi16(_mm256_mullo_epi16(v, c13), c242), c270));
  };
  std::uint64_t c = 0, g = 0;
  for (; c + 160 <= count; c += 160, g += 32) {
    const __m256i v = load256(in + g);
    if (_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_max_epu8(v, limit), limit)) != -1) {
      if (stream) _mm_sfence();
      return false;
    }
    const __m256i q =
        _mm256_or_si256(scaled(_mm256_and_si256(v, low)), _mm256_slli_epi16(scaled(_mm256_srli_epi16(v, 8)), 8));
    const __m256i q00 = _mm256_permute2x128_si256(q, q, 0x00), q11 = _mm256_permute2x128_si256(q, q, 0x11);
    const __m256i sources[5] = {q00, q00, q, q11, q11};  // lanes (0,1) (2,3) (4,5) (6,7) (8,9)
    for (unsigned m = 0; m < 5; ++m) {
      const __m256i r = _mm256_shuffle_epi8(sources[m], load256(t.group[m]));
      const __m256i de = _mm256_mulhi_epu16(_mm256_mullo_epi16(_mm256_and_si256(r, low), load256(t.even[m])), three);
      const __m256i dodd = _mm256_mulhi_epu16(_mm256_mullo_epi16(_mm256_and_si256(r, high), load256(t.odd[m])), three);
      const __m256i d = _mm256_or_si256(de, _mm256_slli_epi16(dodd, 8));
      if (stream)
        _mm256_stream_si256(reinterpret_cast<__m256i*>(out + c + 32 * m), d);
      else
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + c + 32 * m), d);
    }
  }
  if (stream) _mm_sfence();
  return c >= count || unpack_radix3_row_portable(in + g, out + c, count - c);
}

}  // namespace

namespace avx2 {
const UnpackKernels& unpack_kernels() {
  static const UnpackKernels k{"avx2", ONNXQ_UNPACK_BITS_ROWS(bits_row, false), ONNXQ_UNPACK_BITS_ROWS(bits_row, true),
                               &radix3_row<false>, &radix3_row<true>};
  return k;
}
}  // namespace avx2

}  // namespace onnxq::simd
