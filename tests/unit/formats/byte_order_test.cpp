// The field swap of big-endian tensor data: which bytes of each block are reversed. The
// expected ranges are typed here from ggml's block structs, independently of the format rows.
#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <vector>

#include "onnxq/core/error.hpp"
#include "onnxq/formats/byte_order.hpp"

namespace onnxq {
namespace {

struct Swapped {
  std::uint16_t offset, bytes, word;
};

// ggml type -> the numbers of one block stored in the file's byte order. gguf_convert_endian.py
// defines q4_0, q8_0, q4_K, q6_K (and mxfp4: nothing); the rest follow onnxq's documented rule.
const std::map<std::uint32_t, std::vector<Swapped>>& expected() {
  static const std::map<std::uint32_t, std::vector<Swapped>> table = {
      {2, {{0, 2, 2}}},                 // q4_0 d
      {3, {{0, 2, 2}, {2, 2, 2}}},      // q4_1 d, m
      {6, {{0, 2, 2}}},                 // q5_0 d
      {7, {{0, 2, 2}, {2, 2, 2}}},      // q5_1 d, m
      {8, {{0, 2, 2}}},                 // q8_0 d
      {9, {{0, 2, 2}, {2, 2, 2}}},      // q8_1 d, s
      {10, {{80, 2, 2}, {82, 2, 2}}},   // q2_K d, dmin after scales[16], qs[64]
      {11, {{108, 2, 2}}},              // q3_K d last
      {12, {{0, 2, 2}, {2, 2, 2}}},     // q4_K d, dmin
      {13, {{0, 2, 2}, {2, 2, 2}}},     // q5_K d, dmin
      {14, {{208, 2, 2}}},              // q6_K d: the last two bytes
      {15, {{0, 4, 4}, {260, 32, 2}}},  // q8_K float d, int16 bsums[16]
      {16, {{0, 2, 2}}},
      {17, {{0, 2, 2}}},
      {18, {{0, 2, 2}}},
      {19, {{0, 2, 2}}},
      {20, {{0, 2, 2}}},
      {21, {{0, 2, 2}}},
      {22, {{0, 2, 2}}},
      {23, {{0, 2, 2}}},
      {29, {{48, 8, 2}}},  // iq1_m: the four uint16 scale words that carry its binary16
      {34, {{52, 2, 2}}},  // tq1_0 d last
      {35, {{64, 2, 2}}},  // tq2_0 d last
      {39, {}},            // mxfp4: E8M0 byte, untouched
      {40, {}},            // nvfp4: UE4M3 bytes
      {41, {{0, 2, 2}}},
      {42, {{0, 2, 2}}},
  };
  return table;
}

std::vector<std::byte> counting(std::size_t n) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>(i * 7 + 1);
  return v;
}

TEST(ByteOrder, EveryBlockFormatSwapsExactlyItsListedNumbers) {
  ASSERT_EQ(expected().size(), block_formats().size());
  for (const BlockFormat& f : block_formats()) {
    SCOPED_TRACE(std::string(f.gguf_name));
    const auto it = expected().find(f.ggml_type);
    ASSERT_NE(it, expected().end());
    const std::size_t blocks = 1001;  // long runs too: the swap's vector loops and their tails
    const std::vector<std::byte> original = counting(blocks * f.block_bytes);
    std::vector<std::byte> want = original;
    for (std::size_t b = 0; b < blocks; ++b)
      for (const Swapped& s : it->second)
        for (std::size_t w = 0; w < s.bytes; w += s.word)
          for (std::size_t k = 0; k < s.word; ++k)
            want[b * f.block_bytes + s.offset + w + k] = original[b * f.block_bytes + s.offset + w + s.word - 1 - k];
    std::vector<std::byte> got = original;
    swap_byte_order(f, got);
    EXPECT_EQ(got, want);
    EXPECT_EQ(has_byte_order(f), !it->second.empty());
    swap_byte_order(f, got);
    EXPECT_EQ(got, original) << "swapping twice restores the bytes";
  }
}

TEST(ByteOrder, PlainTypesSwapEachElement) {
  for (const BlockFormat& f : all_formats()) {
    if (f.is_block_format()) continue;
    SCOPED_TRACE(std::string(f.gguf_name));
    const std::vector<std::byte> original = counting(1001 * f.block_bytes);
    std::vector<std::byte> got = original;
    swap_byte_order(f, got);
    for (std::size_t i = 0; i < got.size(); ++i) {
      const std::size_t base = i / f.block_bytes * f.block_bytes;
      EXPECT_EQ(got[i], original[base + f.block_bytes - 1 - (i - base)]) << i;
    }
    EXPECT_EQ(has_byte_order(f), f.block_bytes > 1);
  }
}

TEST(ByteOrder, LittleEndianBlocksViewsOrCopiesTheRange) {
  const BlockFormat& q8_0 = *find_format("q8_0");
  const std::vector<std::byte> src = counting(4 * 34);
  std::vector<std::byte> scratch;
  const auto view = little_endian_blocks(q8_0, src, false, 1, 2, scratch);
  EXPECT_EQ(view.data(), src.data() + 34);
  EXPECT_EQ(view.size(), 68u);
  EXPECT_TRUE(scratch.empty());
  const auto copy = little_endian_blocks(q8_0, src, true, 1, 2, scratch);
  ASSERT_EQ(copy.size(), 68u);
  EXPECT_EQ(copy.data(), scratch.data());
  EXPECT_EQ(copy[0], src[35]);
  EXPECT_EQ(copy[1], src[34]);
  EXPECT_EQ(copy[2], src[36]);
  EXPECT_EQ(copy[34], src[69]);
  const BlockFormat& mxfp4 = *find_format("mxfp4");
  EXPECT_EQ(little_endian_blocks(mxfp4, src, true, 0, 2, scratch).data(), src.data()) << "nothing to swap: a view";
  EXPECT_THROW(little_endian_blocks(q8_0, src, true, 3, 2, scratch), Error);
  EXPECT_THROW(little_endian_blocks(q8_0, src, true, ~std::uint64_t{0}, 2, scratch), Error);
  std::vector<std::byte> partial(35);
  EXPECT_THROW(swap_byte_order(q8_0, partial), Error);
}

}  // namespace
}  // namespace onnxq
