// Decoding to float32 bits and comparing them with ggml's expectations (NaN equals NaN), for the
// golden tests of tests/unit/reference/ (blocks) and tests/unit/gguf/ (zoo.gguf's tensors).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/formats/format.hpp"
#include "onnxq/reference/scalar_decoders.hpp"

namespace onnxq::testing {

inline bool is_nan_bits(std::uint32_t b) { return (b & 0x7FFFFFFFu) > 0x7F800000u; }

// Number of elements whose bits differ (both NaN counts as equal); reports the first few.
inline std::size_t count_mismatches(const std::vector<std::uint32_t>& got, const std::vector<std::uint32_t>& want,
                                    const std::string& what) {
  EXPECT_EQ(got.size(), want.size()) << what;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    const bool same = got[i] == want[i] || (is_nan_bits(got[i]) && is_nan_bits(want[i]));
    if (!same && ++bad <= 5)
      ADD_FAILURE() << what << " element " << i << ": got 0x" << std::hex << got[i] << " ("
                    << std::bit_cast<float>(got[i]) << "), want 0x" << want[i] << " (" << std::bit_cast<float>(want[i])
                    << ")";
  }
  return bad;
}

inline std::vector<std::uint32_t> decode_f32(const BlockFormat& f, std::span<const std::byte> bytes, int threads) {
  const std::uint64_t blocks = bytes.size() / f.block_bytes;
  EXPECT_EQ(blocks * f.block_bytes, bytes.size()) << f.gguf_name << ": not whole blocks";
  std::vector<std::uint32_t> out(blocks * f.block_elements, 0xDEADBEEFu);
  decode_blocks(f, bytes, 0, blocks, DType::Float, out.data(), threads);
  return out;
}

// The scalar reference decoder alone, bypassing dispatch.
inline std::vector<std::uint32_t> decode_scalar(const BlockFormat& f, std::span<const std::byte> bytes) {
  const BlockDecoder* d = scalar_block_decoder(f.ggml_type);
  const std::size_t blocks = bytes.size() / f.block_bytes;
  std::vector<std::uint32_t> out(blocks * f.block_elements, 0xDEADBEEFu);
  d->decode(reinterpret_cast<const std::uint8_t*>(bytes.data()), blocks, reinterpret_cast<float*>(out.data()));
  return out;
}

// The block formats, one test instance each.
inline std::vector<const BlockFormat*> block_format_ptrs() {
  std::vector<const BlockFormat*> rows;
  for (const BlockFormat& f : block_formats()) rows.push_back(&f);
  return rows;
}

// The plain (non-block) types, one test instance each.
inline std::vector<const BlockFormat*> plain_formats() {
  std::vector<const BlockFormat*> rows;
  for (const BlockFormat& f : all_formats())
    if (!f.is_block_format()) rows.push_back(&f);
  return rows;
}

}  // namespace onnxq::testing
