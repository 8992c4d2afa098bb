// The specification's worked examples (sections 3-10), each built as a block by hand and
// decoded by the scalar reference decoder: they pin single bit positions, tables and
// operation orders that random vectors only hit by chance.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "formats/codebooks.hpp"  // private: the generated tables, checked for the spec's properties below
#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/formats/format.hpp"

namespace onnxq {
namespace {

using Block = std::vector<std::uint8_t>;

std::vector<float> decode(const char* id, const Block& b) {
  const BlockFormat* f = find_format(id);
  EXPECT_NE(f, nullptr);
  EXPECT_EQ(b.size(), f->block_bytes) << id;
  std::vector<float> y(f->block_elements);
  scalar_block_decoder(f->ggml_type)->decode(b.data(), 1, y.data());
  return y;
}

void put16(Block& b, std::size_t o, std::uint16_t v) {
  b[o] = v & 0xFF;
  b[o + 1] = v >> 8;
}

void expect_values(const std::vector<float>& y, std::size_t first, std::size_t stride,
                   std::initializer_list<float> want) {
  std::size_t i = first;
  for (float w : want) {
    EXPECT_EQ(y[i], w) << "element " << i;
    i += stride;
  }
}

TEST(SpecExamples, Q4_1TieRoundsToEven) {  // §5.2
  Block b(20, 0);
  put16(b, 0, 0x2E66);
  put16(b, 2, 0xE9DC);
  b[4] = 3;
  EXPECT_EQ(std::bit_cast<std::uint32_t>(decode("gguf:q4_1", b)[0]), 0xC53B7B34u);
}

TEST(SpecExamples, Q8_1IgnoresItsSum) {  // §5.6
  Block b(36, 0);
  put16(b, 0, 0x3C00);
  put16(b, 2, 0x7C00);  // s = +inf, never read
  for (int j = 0; j < 32; ++j) b[4 + j] = static_cast<std::uint8_t>(j - 16);
  const auto y = decode("gguf:q8_1", b);
  for (int j = 0; j < 32; ++j) EXPECT_EQ(y[j], static_cast<float>(j - 16));
}

TEST(SpecExamples, Q3_KSixBitScales) {  // §6.2
  Block b(110, 0);
  for (int i = 0; i < 32; ++i) b[i] = 0xFF;   // high bits set: q = lo
  for (int i = 32; i < 96; ++i) b[i] = 0x55;  // every 2-bit code 1
  const std::uint8_t S[12] = {0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE, 0xE4, 0x1B, 0x4E, 0xB1};
  for (int i = 0; i < 12; ++i) b[96 + i] = S[i];
  put16(b, 108, 0x3C00);
  expect_values(decode("gguf:q3_k", b), 0, 16, {-32, 18, 4, -10, -8, 10, 28, -18, 1, -13, -27, 23, 25, -21, -3, 15});
  for (int i = 0; i < 32; ++i) b[i] = 0x00;  // high bits clear: q = lo - 4 = -3
  expect_values(decode("gguf:q3_k", b), 0, 16, {96, -54, -12, 30, 24, -30, -84, 54, -3, 39, 81, -69, -75, 63, 9, -45});
}

TEST(SpecExamples, Q4_KScalesAndMins) {  // §6.3
  Block b(144, 0);
  const std::uint8_t K[12] = {0xC5, 0x0A, 0x7F, 0x81, 0x46, 0xD3, 0x2C, 0x99, 0x5A, 0xF0, 0x0F, 0x36};
  for (int i = 0; i < 12; ++i) b[4 + i] = K[i];
  for (int i = 16; i < 144; ++i) b[i] = 0x11;  // q = 1 in both nibbles
  put16(b, 0, 0x3C00);                         // d = 1, dmin = 0: y = sc
  expect_values(decode("gguf:q4_k", b), 0, 32, {5, 10, 63, 1, 58, 0, 31, 38});
  put16(b, 0, 0x0000);
  put16(b, 2, 0x3C00);  // d = 0, dmin = 1: y = -mn
  expect_values(decode("gguf:q4_k", b), 0, 32, {-6, -19, -44, -25, -21, -63, 0, -35});
}

TEST(SpecExamples, Q6_KGroupsScaleFirstForTheSignOfZero) {  // §2.4, §6.5
  Block b(210, 0);                                          // ql = qh = 0: q = -32; scales 0
  put16(b, 208, 0x3C00);
  for (float v : decode("gguf:q6_k", b)) EXPECT_EQ(std::bit_cast<std::uint32_t>(v), 0x80000000u);  // (1*0)*-32 = -0
}

TEST(SpecExamples, Iq2_XXSScaleGridAndParitySigns) {  // §7.1
  Block b(66, 0);
  put16(b, 0, 0x3C00);
  b[2] = 3;                                 // grid index 3: 8, 43, 8, 8, 8, 8, 8, 8
  const std::uint32_t W = (3u << 28) | 1u;  // s = 3, sign code 1 -> elements 0 and 7 negative
  for (int i = 0; i < 4; ++i) b[6 + i] = (W >> (8 * i)) & 0xFF;
  expect_values(decode("gguf:iq2_xxs", b), 0, 1, {-7.0f, 37.625f, 7.0f, 7.0f, 7.0f, 7.0f, 7.0f, -7.0f});
}

TEST(SpecExamples, Iq3_SDirectSignBytes) {  // §7.5
  Block b(110, 0);
  put16(b, 0, 0x3800);
  b[106] = 0x03;
  b[2] = 0x2A;
  b[66] = 0x01;
  b[3] = 0x07;
  b[74] = 0x91;
  expect_values(decode("gguf:iq3_s", b), 0, 1, {-38.5f, 3.5f, 10.5f, 24.5f, -17.5f, 10.5f, 3.5f, -3.5f});
}

TEST(SpecExamples, Iq1_SDeltaBeforeScale) {  // §7.6
  Block b(50, 0);
  put16(b, 0, 0x3C00);
  b[2] = 5;
  put16(b, 34, 0x9000);
  expect_values(decode("gguf:iq1_s", b), 0, 1,
                {-0.375f, -3.375f, -0.375f, -3.375f, -3.375f, -3.375f, -3.375f, -3.375f});
  put16(b, 34, 0x1000);
  expect_values(decode("gguf:iq1_s", b), 0, 1, {0.375f, -2.625f, 0.375f, -2.625f});
}

TEST(SpecExamples, Iq1_MHalfScaleFromFourNibbles) {  // §7.7
  Block b(56, 0);
  b[0] = 5;  // grid index 5 (first 8 elements), delta +1/8, sub-scale bits 0 -> dl = d
  put16(b, 48, 0x5000);
  put16(b, 50, 0x5000);
  put16(b, 52, 0xD000);
  put16(b, 54, 0x3000);  // dbits 0x3D55: d = 1.3330078125
  const float d = 1.3330078125f;
  expect_values(decode("gguf:iq1_m", b), 0, 1, {d * 0.125f, d * -0.875f, d * 0.125f, d * -0.875f});
}

TEST(SpecExamples, Tq1_0BaseThreeDigits) {  // §8.1
  Block b(54, 0);
  b[0] = 186;  // digits 2, 0, 1, 1, 2 -> elements 0, 32, 64, 96, 128
  put16(b, 52, 0x3C00);
  expect_values(decode("gguf:tq1_0", b), 0, 32, {1, -1, 0, 0, 1});
  b[48] = 255;  // qh byte: digits 2, 2, 2, 2 -> elements 240, 244, 248, 252
  expect_values(decode("gguf:tq1_0", b), 240, 4, {1, 1, 1, 1});
}

TEST(SpecExamples, Mxfp4E8M0HalfScale) {  // §3.3, §9.1
  Block b(17, 0);
  b[0] = 0x7A;
  b[1] = 13;  // code 13: kvalues -6
  EXPECT_EQ(decode("gguf:mxfp4", b)[0], -0.09375f);
  b[0] = 255;
  b[1] = 0x21;  // element 0 code 1 (k=1), element 16 code 2 (k=2)
  const auto y = decode("gguf:mxfp4", b);
  EXPECT_EQ(y[0], 0x1p127f);  // not NaN: ggml's 255 is a finite scale
  EXPECT_EQ(y[16], INFINITY);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(y[1]), 0u);  // code 0 -> +0, not 0 * inf
  b[0] = 0;
  EXPECT_EQ(std::bit_cast<std::uint32_t>(decode("gguf:mxfp4", b)[0]), 0x00200000u);  // subnormal 2^-128
  b[0] = 1;
  EXPECT_EQ(std::bit_cast<std::uint32_t>(decode("gguf:mxfp4", b)[0]), 0x00400000u);
}

TEST(SpecExamples, Nvfp4UE4M3HalfScales) {  // §3.4, §9.2
  const std::uint8_t x[10] = {0x00, 0x01, 0x07, 0x08, 0x38, 0x7E, 0x7F, 0x80, 0xB8, 0xFF};
  const float T[10] = {0.0f, 0x1p-10f, 7 * 0x1p-10f, 0x1p-7f, 0.5f, 224.0f, 0.0f, 0.0f, 0.5f, 240.0f};
  for (int i = 0; i < 10; ++i) {
    Block b(36, 0);
    b[0] = x[i];
    b[4] = 0x2A;  // element 0 code 10 (k=-2), element 8 code 2 (k=2)
    const auto y = decode("gguf:nvfp4", b);
    EXPECT_EQ(y[0], -2 * T[i]) << "byte " << int(x[i]);
    EXPECT_EQ(y[8], 2 * T[i]) << "byte " << int(x[i]);
    EXPECT_EQ(std::signbit(y[0]), true) << "-k * 0.0 is -0.0";
  }
}

TEST(SpecExamples, Q1_0AndQ2_0BitOrder) {  // §10
  Block b(18, 0);
  put16(b, 0, 0x4000);  // d = 2
  b[2] = 0x01;
  b[17] = 0x80;
  const auto y1 = decode("gguf:q1_0", b);
  EXPECT_EQ(y1[0], 2.0f);
  EXPECT_EQ(y1[1], -2.0f);
  EXPECT_EQ(y1[127], 2.0f);
  b[2] = 0b11100100;  // codes 0, 1, 2, 3 -> -1, 0, +1, +2
  expect_values(decode("gguf:q2_0", b), 0, 1, {-2.0f, 0.0f, 2.0f, 4.0f});
}

// The generated codebooks keep the properties the spec states for each table (§7, §12).
TEST(Codebooks, HaveTheSpecsValueSets) {
  using namespace formats;
  auto bytes_in = [](auto grid, int per_entry, std::initializer_list<int> allowed) {
    for (auto v : grid)
      for (int k = 0; k < per_entry; ++k) {
        const int b = static_cast<int>((static_cast<std::uint64_t>(v) >> (8 * k)) & 0xFF);
        if (std::find(allowed.begin(), allowed.end(), b) == allowed.end()) return false;
      }
    return true;
  };
  EXPECT_TRUE(bytes_in(kIq2xxsGrid, 8, {8, 25, 43}));
  EXPECT_TRUE(bytes_in(kIq2xsGrid, 8, {8, 25, 43}));
  EXPECT_TRUE(bytes_in(kIq2sGrid, 8, {8, 25, 43}));
  EXPECT_TRUE(bytes_in(kIq3xxsGrid, 4, {4, 12, 20, 28, 36, 44, 52, 62}));
  EXPECT_TRUE(bytes_in(kIq3sGrid, 4, {1, 3, 5, 7, 9, 11, 13, 15}));
  EXPECT_TRUE(bytes_in(kIq1sGrid, 8, {0xFF, 0x00, 0x01}));
  for (int s = 0; s < 128; ++s) EXPECT_EQ(kKsignsIq2xs[s], s | ((std::popcount(unsigned(s)) & 1) << 7));
  for (int k = 0; k < 8; ++k) EXPECT_EQ(kKmaskIq2xs[k], 1 << k);
  const int iq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
  const int fp4[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};
  for (int c = 0; c < 16; ++c) {
    EXPECT_EQ(kKvaluesIq4nl[c], iq4nl[c]);
    EXPECT_EQ(kKvaluesFp4[c], fp4[c]);
  }
}

}  // namespace
}  // namespace onnxq
