// Overflow-checked size arithmetic for sizes read from untrusted files.
#pragma once

#include <cstdint>
#include <optional>

namespace onnxq {

inline std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<std::uint64_t> checked_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// Round x up to a multiple of `align` (a power of two); nullopt on overflow.
inline std::optional<std::uint64_t> checked_align_up(std::uint64_t x, std::uint64_t align) {
  auto sum = checked_add(x, align - 1);
  if (!sum) return std::nullopt;
  return *sum & ~(align - 1);
}

}  // namespace onnxq
