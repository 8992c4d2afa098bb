// Little-endian field reads for packed blocks. Blocks of 17, 18 or 22 bytes leave
// fields unaligned, so every read goes byte by byte (never a struct or pointer cast).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "onnxq/core/half.hpp"

namespace onnxq::dequant {

inline std::uint32_t u16_at(const std::uint8_t* b) { return static_cast<std::uint32_t>(b[0]) | (static_cast<std::uint32_t>(b[1]) << 8); }

inline std::uint32_t u32_at(const std::uint8_t* b) {
  return static_cast<std::uint32_t>(b[0]) | (static_cast<std::uint32_t>(b[1]) << 8) |
         (static_cast<std::uint32_t>(b[2]) << 16) | (static_cast<std::uint32_t>(b[3]) << 24);
}

inline std::uint64_t u64_at(const std::uint8_t* b) {
  return static_cast<std::uint64_t>(u32_at(b)) | (static_cast<std::uint64_t>(u32_at(b + 4)) << 32);
}

inline float half_at(const std::uint8_t* b) { return half_to_float(static_cast<std::uint16_t>(u16_at(b))); }

// Byte x as two's complement (spec §2.2 i8()).
inline int i8_of(std::uint8_t x) { return static_cast<int>(static_cast<std::int8_t>(x)); }

// Runs a one-block decoder over consecutive blocks: Layout is the block's byte struct
// (its sizeof is the block size), QK the elements per block.
template <class Layout, std::size_t QK, void (*DecodeOne)(const std::uint8_t*, float*)>
void decode_run(const std::uint8_t* src, std::size_t block_count, float* y) {
  for (std::size_t i = 0; i < block_count; ++i) DecodeOne(src + i * sizeof(Layout), y + i * QK);
}

}  // namespace onnxq::dequant
