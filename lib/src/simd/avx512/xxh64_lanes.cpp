// XXH64's accumulator loop in AVX-512 lanes (compiled with this ISA's flags, and DQ for vpmullq).
// A stream's four accumulators depend each on its own last value, so one stream fills only half a
// vector: the other half takes a second stream over the same bytes (the model and tensor hashes).
#include <immintrin.h>

#include <bit>

#include "simd/xxh64_lanes.hpp"

namespace onnxq::simd::avx512 {

void xxh64_stripes(std::uint64_t acc[4], const std::byte* p, std::size_t stripes) {
  static_assert(std::endian::native == std::endian::little);
  const __m256i prime1 = _mm256_set1_epi64x(static_cast<long long>(kXxhPrime1));
  const __m256i prime2 = _mm256_set1_epi64x(static_cast<long long>(kXxhPrime2));
  __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc));
  for (std::size_t i = 0; i < stripes; ++i, p += 32) {
    const __m256i in = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    a = _mm256_mullo_epi64(_mm256_rol_epi64(_mm256_add_epi64(a, _mm256_mullo_epi64(in, prime2)), 31), prime1);
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc), a);
}

void xxh64_stripes_pair(std::uint64_t acc_a[4], const std::byte* pa, std::uint64_t acc_b[4], const std::byte* pb,
                        std::size_t stripes) {
  const __m512i prime1 = _mm512_set1_epi64(static_cast<long long>(kXxhPrime1));
  const __m512i prime2 = _mm512_set1_epi64(static_cast<long long>(kXxhPrime2));
  __m512i a = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc_a))),
                                 _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc_b)), 1);
  const std::ptrdiff_t b_from_a = pb - pa;
  for (std::size_t i = 0; i < stripes; ++i, pa += 32) {
    const __m512i in =
        _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(pa))),
                           _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pa + b_from_a)), 1);
    a = _mm512_mullo_epi64(_mm512_rol_epi64(_mm512_add_epi64(a, _mm512_mullo_epi64(in, prime2)), 31), prime1);
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc_a), _mm512_castsi512_si256(a));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc_b), _mm512_extracti64x4_epi64(a, 1));
}

}  // namespace onnxq::simd::avx512
