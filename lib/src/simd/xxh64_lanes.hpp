// XXH64's inner loop (its four 64-bit accumulators over 32-byte stripes), for one stream or for
// two streams at once. Scalar here; AVX-512 DQ in avx512/xxh64_lanes.cpp, called only when the CPU
// has it (lib/src/hash/xxh64.cpp decides).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace onnxq::simd {

inline constexpr std::uint64_t kXxhPrime1 = 0x9E3779B185EBCA87ULL;
inline constexpr std::uint64_t kXxhPrime2 = 0xC2B2AE3D27D4EB4FULL;
inline constexpr std::uint64_t kXxhPrime3 = 0x165667B19E3779F9ULL;
inline constexpr std::uint64_t kXxhPrime4 = 0x85EBCA77C2B2AE63ULL;
inline constexpr std::uint64_t kXxhPrime5 = 0x27D4EB2F165667C5ULL;

// XXH64 reads its input as little-endian words whatever the host.
inline std::uint64_t xxh_read64(const std::byte* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}

inline std::uint64_t xxh64_round(std::uint64_t acc, std::uint64_t input) {
  return std::rotl(acc + input * kXxhPrime2, 31) * kXxhPrime1;
}

inline void xxh64_stripes_scalar(std::uint64_t acc[4], const std::byte* p, std::size_t stripes) {
  std::uint64_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
  for (std::size_t i = 0; i < stripes; ++i, p += 32) {
    a0 = xxh64_round(a0, xxh_read64(p));
    a1 = xxh64_round(a1, xxh_read64(p + 8));
    a2 = xxh64_round(a2, xxh_read64(p + 16));
    a3 = xxh64_round(a3, xxh_read64(p + 24));
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

namespace avx512 {
// `stripes` stripes into acc from p. Needs AVX-512 F, VL and DQ.
void xxh64_stripes(std::uint64_t acc[4], const std::byte* p, std::size_t stripes);
// `stripes` stripes into acc_a from pa and into acc_b from pb, the eight accumulators in one
// vector (both streams in one pass over the bytes). Needs AVX-512 F, VL and DQ.
void xxh64_stripes_pair(std::uint64_t acc_a[4], const std::byte* pa, std::uint64_t acc_b[4], const std::byte* pb,
                        std::size_t stripes);
}  // namespace avx512

}  // namespace onnxq::simd
