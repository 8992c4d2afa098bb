#include "hash/xxh64.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string_view>

#include "decode/cpu_features.hpp"
#include "onnxq/decode/isa.hpp"
#include "simd/xxh64_lanes.hpp"

namespace onnxq {
namespace {

using namespace simd;

// The AVX-512 lanes where the CPU has them and ONNXQ_ISA does not ask for the scalar path.
bool use_avx512() {
#if ONNXQ_HAVE_X86_SIMD
  const decode::CpuFeatures& cpu = decode::cpu_features();
  return cpu.avx512 && cpu.avx512_dq && std::string_view(onnxq::active_isa()).starts_with("avx512");
#else
  return false;
#endif
}

void stripes(std::uint64_t acc[4], const std::byte* p, std::size_t count) {
#if ONNXQ_HAVE_X86_SIMD
  if (use_avx512()) return avx512::xxh64_stripes(acc, p, count);
#endif
  xxh64_stripes_scalar(acc, p, count);
}

void stripes_pair(std::uint64_t acc_a[4], const std::byte* pa, std::uint64_t acc_b[4], const std::byte* pb,
                  std::size_t count) {
#if ONNXQ_HAVE_X86_SIMD
  if (use_avx512()) return avx512::xxh64_stripes_pair(acc_a, pa, acc_b, pb, count);
#endif
  xxh64_stripes_scalar(acc_a, pa, count);
  xxh64_stripes_scalar(acc_b, pb, count);
}

std::uint64_t merge_round(std::uint64_t h, std::uint64_t acc) {
  return (h ^ xxh64_round(0, acc)) * kXxhPrime1 + kXxhPrime4;
}

std::uint32_t read32(const std::byte* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  return v;
}

}  // namespace

Xxh64::Xxh64(std::uint64_t seed)
    : seed_(seed), acc_{seed + kXxhPrime1 + kXxhPrime2, seed + kXxhPrime2, seed, seed - kXxhPrime1} {}

std::size_t Xxh64::complete_stripe(const std::byte* p, std::size_t n) {
  if (partial_size_ == 0) return 0;
  const std::size_t take = std::min(n, sizeof partial_ - partial_size_);
  std::memcpy(partial_ + partial_size_, p, take);
  partial_size_ += take;
  if (partial_size_ == sizeof partial_) {
    xxh64_stripes_scalar(acc_, partial_, 1);
    partial_size_ = 0;
  }
  return take;
}

void Xxh64::absorb(const std::byte* p, std::size_t n) {
  const std::size_t head = complete_stripe(p, n);
  if (partial_size_ != 0) return;  // all n bytes went into the stripe, still not complete
  p += head;
  n -= head;
  const std::size_t whole = n / 32;
  stripes(acc_, p, whole);
  std::memcpy(partial_, p + 32 * whole, n - 32 * whole);
  partial_size_ = n - 32 * whole;
}

void Xxh64::update(std::span<const std::byte> bytes) {
  if (bytes.empty()) return;
  total_ += bytes.size();
  absorb(bytes.data(), bytes.size());
}

void Xxh64::update_both(Xxh64& a, Xxh64& b, std::span<const std::byte> bytes) {
  if (bytes.empty()) return;
  const std::byte* p = bytes.data();
  const std::size_t n = bytes.size();
  a.total_ += n;
  b.total_ += n;
  // Each stream first completes its own partial stripe: after that their stripes start at
  // offsets of their own, and run together for as many stripes as both have.
  const std::size_t head_a = a.complete_stripe(p, n), head_b = b.complete_stripe(p, n);
  const std::size_t together = std::min((n - head_a) / 32, (n - head_b) / 32);
  stripes_pair(a.acc_, p + head_a, b.acc_, p + head_b, together);
  a.absorb(p + head_a + 32 * together, n - head_a - 32 * together);
  b.absorb(p + head_b + 32 * together, n - head_b - 32 * together);
}

std::uint64_t Xxh64::digest() const {
  std::uint64_t h;
  if (total_ >= 32) {
    h = std::rotl(acc_[0], 1) + std::rotl(acc_[1], 7) + std::rotl(acc_[2], 12) + std::rotl(acc_[3], 18);
    for (std::uint64_t acc : acc_) h = merge_round(h, acc);
  } else {
    h = seed_ + kXxhPrime5;
  }
  h += total_;
  const std::byte* p = partial_;
  std::size_t n = partial_size_;
  for (; n >= 8; n -= 8, p += 8) h = std::rotl(h ^ xxh64_round(0, xxh_read64(p)), 27) * kXxhPrime1 + kXxhPrime4;
  if (n >= 4) {
    h = std::rotl(h ^ (read32(p) * kXxhPrime1), 23) * kXxhPrime2 + kXxhPrime3;
    n -= 4;
    p += 4;
  }
  for (; n > 0; --n, ++p) h = std::rotl(h ^ (std::to_integer<std::uint64_t>(*p) * kXxhPrime5), 11) * kXxhPrime1;
  h ^= h >> 33;
  h *= kXxhPrime2;
  h ^= h >> 29;
  h *= kXxhPrime3;
  h ^= h >> 32;
  return h;
}

}  // namespace onnxq
