// Unpack row kernels for AVX-512 with VBMI (this folder adds -mavx512vbmi to the AVX-512 flags): vpermb puts the BITS
// bytes holding each run of eight codes into one qword, vpmultishiftqb pulls every code's 8-bit
// window out of it, one AND keeps BITS bits; (3, 5) below. Row ends use masked loads and stores (never touching
// bytes outside the row). Everything but the exported table has internal linkage, and no
// std:: inline templates are used here (their out-of-line copies could be shared with other code).
#if !defined(__AVX512VBMI__) || !defined(__AVX512BW__)
#error "simd/avx512vbmi/unpack.cpp needs -mavx512f -mavx512bw -mavx512vbmi"
#endif

#include <immintrin.h>

#include <cstring>

#include "simd/unpack_kernels.hpp"

namespace onnxq::simd {
namespace {

inline __m512i load_table(const void* t) { return _mm512_loadu_si512(t); }
inline __mmask64 first_bytes(std::uint64_t n) { return n >= 64 ? ~__mmask64{0} : (__mmask64{1} << n) - 1; }

template <unsigned BITS>
struct BitsTables {
  std::uint8_t perm[64]{}, shift[64]{};
  constexpr BitsTables() {
    for (unsigned q = 0; q < 8; ++q)
      for (unsigned j = 0; j < 8; ++j) {
        perm[q * 8 + j] = static_cast<std::uint8_t>(q * BITS + j);  // codes 8q..8q+7 start at byte q*BITS
        shift[q * 8 + j] = static_cast<std::uint8_t>(j * BITS);     // code j's first bit inside that qword
      }
  }
};

template <unsigned BITS>
inline __m512i codes64(__m512i words, __m512i perm, __m512i shift, __m512i mask) {
  return _mm512_and_si512(_mm512_multishift_epi64_epi8(shift, _mm512_permutexvar_epi8(perm, words)), mask);
}

// STREAM: non-temporal stores for outputs far larger than the caches, once the row's output
// reaches a 64-byte boundary at a whole input byte (a head of a multiple of 8 codes).
template <unsigned BITS, bool STREAM>
void bits_row(const std::uint8_t* in, std::uint8_t* out, std::uint64_t count, std::uint64_t in_bytes) {
  if constexpr (BITS == 8 && !STREAM) {
    std::memcpy(out, in, count);
  } else {
    static constexpr BitsTables<BITS> tables;
    const __m512i perm = load_table(tables.perm), shift = load_table(tables.shift);
    const __m512i mask = _mm512_set1_epi8(static_cast<char>((1u << BITS) - 1));
    constexpr std::uint64_t step = 8 * BITS;  // input bytes per 64 codes
    std::uint64_t c = 0, pos = 0;
    auto masked = [&](std::uint64_t end) {  // codes c..end (at most 64), reading only the row's bytes
      const __m512i words = _mm512_maskz_loadu_epi8(first_bytes(in_bytes - pos), in + pos);
      _mm512_mask_storeu_epi8(out + c, first_bytes(end - c), codes64<BITS>(words, perm, shift, mask));
    };
    if constexpr (STREAM) {
      const std::uint64_t head = (64 - reinterpret_cast<std::uintptr_t>(out) % 64) % 64;
      if (head % 8 == 0 && head + 64 <= count) {
        if (head) masked(head);
        c = head;
        pos = head / 8 * BITS;
        for (; c + 64 <= count && pos + 64 <= in_bytes; c += 64, pos += step)
          _mm512_stream_si512(reinterpret_cast<__m512i*>(out + c),
                              codes64<BITS>(_mm512_loadu_si512(in + pos), perm, shift, mask));
        _mm_sfence();
      }
    }
    for (; c + 64 <= count && pos + 64 <= in_bytes; c += 64, pos += step)
      _mm512_storeu_si512(out + c, codes64<BITS>(_mm512_loadu_si512(in + pos), perm, shift, mask));
    for (; c < count; c += 64, pos += step) masked(count);
  }
}

// (3, 5): a byte v < 243 holds digits d0..d4 with v = sum d_i 3^i. With q = ceil(256 v / 243),
// q / 256 approximates v / 243 = 0.d4d3d2d1d0 (base 3), so digit d_i is the integer part of
// 3 * frac(q * 3^(4-i) / 256): ((q * 3^(4-i)) mod 256) * 3 >> 8 (checked for all 243 v by the tests).
struct Radix3Tables {
  std::uint8_t q[4][64]{};                    // q(v) for v in [64k, 64k+64)
  std::uint8_t group[5][64]{};                // output byte -> group within the 64 bytes
  std::uint16_t even[5][32]{}, odd[5][32]{};  // 3^(4-i) mod 256, placed for the multiply
  constexpr Radix3Tables() {
    for (unsigned v = 0; v < 256; ++v)
      q[v / 64][v % 64] = static_cast<std::uint8_t>(v < 243 ? (256 * v + 242) / 243 : 0);
    constexpr unsigned pow3[5] = {81, 27, 9, 3, 1};
    for (unsigned m = 0; m < 5; ++m)
      for (unsigned t = 0; t < 64; ++t) {
        const unsigned p = 64 * m + t;
        group[m][t] = static_cast<std::uint8_t>(p / 5);
        const unsigned c = pow3[p % 5];
        if (t % 2 == 0)
          even[m][t / 2] = static_cast<std::uint16_t>(c << 8);
        else
          odd[m][t / 2] = static_cast<std::uint16_t>(c);
      }
  }
};

// STREAM: non-temporal stores for the whole vectors when the row's output is 64-byte aligned
// (320 codes per block keep it so).
template <bool STREAM>
bool radix3_row(const std::uint8_t* in, std::uint8_t* out, std::uint64_t count) {
  const bool stream = STREAM && reinterpret_cast<std::uintptr_t>(out) % 64 == 0;
  static constexpr Radix3Tables t;
  const __m512i q0 = load_table(t.q[0]), q1 = load_table(t.q[1]), q2 = load_table(t.q[2]), q3 = load_table(t.q[3]);
  __m512i group[5], even[5], odd[5];
  for (unsigned m = 0; m < 5; ++m) {
    group[m] = load_table(t.group[m]);
    even[m] = _mm512_loadu_si512(t.even[m]);
    odd[m] = _mm512_loadu_si512(t.odd[m]);
  }
  const __m512i low = _mm512_set1_epi16(0x00FF), high = _mm512_set1_epi16(static_cast<short>(0xFF00));
  const __m512i three = _mm512_set1_epi16(3), limit = _mm512_set1_epi8(static_cast<char>(242));
  // 64 groups -> 320 codes in five vectors; `load` and `store` masks trim the row's end.
  auto block = [&](const std::uint8_t* src, __mmask64 load, std::uint8_t* dst, std::uint64_t codes) {
    const __m512i v = _mm512_maskz_loadu_epi8(load, src);
    if (_mm512_cmpgt_epu8_mask(v, limit)) return false;
    const __m512i lo = _mm512_permutex2var_epi8(q0, v, q1), hi = _mm512_permutex2var_epi8(q2, v, q3);
    const __m512i q = _mm512_mask_blend_epi8(_mm512_movepi8_mask(v), lo, hi);
    for (unsigned m = 0; m < 5 && 64 * m < codes; ++m) {
      const __m512i r = _mm512_permutexvar_epi8(group[m], q);
      // ((r * c) mod 256) << 8 per byte, then * 3 >> 16: the digit, in each word's low byte.
      const __m512i de = _mm512_mulhi_epu16(_mm512_mullo_epi16(_mm512_and_si512(r, low), even[m]), three);
      const __m512i dodd = _mm512_mulhi_epu16(_mm512_mullo_epi16(_mm512_and_si512(r, high), odd[m]), three);
      const __m512i d = _mm512_or_si512(de, _mm512_slli_epi16(dodd, 8));
      if (codes >= 64 * m + 64 && stream)
        _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + 64 * m), d);
      else if (codes >= 64 * m + 64)
        _mm512_storeu_si512(dst + 64 * m, d);
      else
        _mm512_mask_storeu_epi8(dst + 64 * m, first_bytes(codes - 64 * m), d);
    }
    return true;
  };
  std::uint64_t c = 0, g = 0;
  for (; c + 320 <= count; c += 320, g += 64)
    if (!block(in + g, ~__mmask64{0}, out + c, 320)) {
      if (stream) _mm_sfence();
      return false;
    }
  if (c < count && !block(in + g, first_bytes((count - c + 4) / 5), out + c, count - c)) return false;
  if (stream) _mm_sfence();
  return true;
}

}  // namespace

namespace avx512vbmi {
const UnpackKernels& unpack_kernels() {
  static const UnpackKernels k{"avx512vbmi", ONNXQ_UNPACK_BITS_ROWS(bits_row, false),
                               ONNXQ_UNPACK_BITS_ROWS(bits_row, true), &radix3_row<false>, &radix3_row<true>};
  return k;
}
}  // namespace avx512vbmi

}  // namespace onnxq::simd
