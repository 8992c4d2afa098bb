// Little-endian field reads for packed blocks. Blocks of 17, 18 or 22 bytes leave
// fields unaligned, so every read goes byte by byte (never a struct or pointer cast).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "formats/format_rows.hpp"
#include "onnxq/core/half.hpp"

namespace onnxq::reference {

inline std::uint32_t u16_at(const std::uint8_t* b) {
  return static_cast<std::uint32_t>(b[0]) | (static_cast<std::uint32_t>(b[1]) << 8);
}

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

// Runs a one-block decoder over consecutive blocks of format Id, sized by its format row.
template <formats::FormatId Id, void (*DecodeOne)(const std::uint8_t*, float*)>
void decode_run(const std::uint8_t* src, std::size_t block_count, float* y) {
  constexpr std::size_t kBytes = formats::row(Id).block_bytes, kElements = formats::row(Id).block_elements;
  for (std::size_t i = 0; i < block_count; ++i) DecodeOne(src + i * kBytes, y + i * kElements);
}

}  // namespace onnxq::reference
