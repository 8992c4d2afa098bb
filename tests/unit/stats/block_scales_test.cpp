// The scale-field table: every block format has a row, offsets lie inside the block, and
// NaN/Inf/subnormal scales are found where the spec puts them (not at a neighbouring field).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "onnxq/formats/format.hpp"
#include "onnxq/stats/block_scales.hpp"

namespace onnxq {
namespace {

constexpr std::uint16_t kHalfNaN = 0x7E00, kHalfInf = 0xFC00, kHalfSub = 0x0001, kHalfOne = 0x3C00;

std::vector<std::byte> blocks_of(const BlockFormat& f, std::size_t n) {
  return std::vector<std::byte>(n * f.block_bytes);
}

void put_u16(std::vector<std::byte>& b, std::size_t at, std::uint16_t v) {
  b[at] = std::byte(v & 0xFF);
  b[at + 1] = std::byte(v >> 8);
}

TEST(BlockScales, EveryBlockFormatHasARowInsideItsBlock) {
  for (const BlockFormat& f : block_formats()) {
    const BlockScaleLayout* row = block_scale_layout(f);
    ASSERT_NE(row, nullptr) << f.format_id;
    const unsigned width = row->encoding == ScaleEncoding::Float32    ? 4
                           : row->encoding == ScaleEncoding::Iq1mHalf ? 8
                           : row->encoding == ScaleEncoding::Half     ? 2
                                                                      : 1;
    ASSERT_GE(row->field_count, 1u);
    for (unsigned k = 0; k < row->field_count; ++k) EXPECT_LE(row->offsets[k] + width, f.block_bytes) << f.format_id;
  }
  EXPECT_EQ(block_scale_layouts().size(), block_formats().size());
  EXPECT_EQ(block_scale_layout(*find_format("f16")), nullptr);
}

// Half scales sit where the spec's layout tables say (first or last field).
TEST(BlockScales, HalfScaleAtSpecOffset) {
  const struct {
    const char* format;
    std::size_t offset;
  } cases[] = {{"gguf:q4_0", 0},   {"gguf:q2_k", 80},  {"gguf:q3_k", 108}, {"gguf:q6_k", 208},
               {"gguf:tq1_0", 52}, {"gguf:tq2_0", 64}, {"gguf:iq4_xs", 0}, {"gguf:q2_0", 0}};
  for (const auto& c : cases) {
    const BlockFormat& f = *find_format(c.format);
    auto b = blocks_of(f, 4);
    put_u16(b, 0 * f.block_bytes + c.offset, kHalfNaN);
    put_u16(b, 1 * f.block_bytes + c.offset, kHalfInf);
    put_u16(b, 2 * f.block_bytes + c.offset, kHalfSub);
    put_u16(b, 3 * f.block_bytes + c.offset, kHalfOne);
    const ScaleCounts n = count_block_scales(f, b, 0, 4);
    EXPECT_EQ(n.nan, 1u) << c.format;
    EXPECT_EQ(n.inf, 1u) << c.format;
    EXPECT_EQ(n.subnormal, 1u) << c.format;
    // The same bits anywhere else in the block are not a scale.
    auto other = blocks_of(f, 1);
    put_u16(other, c.offset == 0 ? f.block_bytes - 2 : 0, kHalfNaN);
    EXPECT_EQ(count_block_scales(f, other, 0, 1).nan, 0u) << c.format;
  }
}

TEST(BlockScales, MinimumFieldsCount) {
  const BlockFormat& q4_k = *find_format("gguf:q4_k");
  auto b = blocks_of(q4_k, 1);
  put_u16(b, 2, kHalfInf);  // dmin
  EXPECT_EQ(count_block_scales(q4_k, b, 0, 1).inf, 1u);
  const BlockFormat& q8_1 = *find_format("gguf:q8_1");
  auto c = blocks_of(q8_1, 1);
  put_u16(c, 2, kHalfInf);  // s: stored but never decoded
  EXPECT_EQ(count_block_scales(q8_1, c, 0, 1).inf, 0u);
}

TEST(BlockScales, Q8KFloat32) {
  const BlockFormat& f = *find_format("gguf:q8_k");
  auto b = blocks_of(f, 3);
  const std::uint32_t nan = 0x7FC00000, inf = 0x7F800000, sub = 0x00000010;
  std::memcpy(&b[0], &nan, 4);  // the test host is little-endian like the format
  std::memcpy(&b[f.block_bytes], &inf, 4);
  std::memcpy(&b[2 * f.block_bytes], &sub, 4);
  const ScaleCounts n = count_block_scales(f, b, 0, 3);
  EXPECT_EQ(n.nan, 1u);
  EXPECT_EQ(n.inf, 1u);
  EXPECT_EQ(n.subnormal, 1u);
  // A half-sized NaN pattern in the low bytes is an ordinary float32.
  auto c = blocks_of(f, 1);
  put_u16(c, 0, kHalfNaN);
  EXPECT_EQ(count_block_scales(f, c, 0, 1).nan, 0u);
}

TEST(BlockScales, Mxfp4E8M0) {
  const BlockFormat& f = *find_format("gguf:mxfp4");
  auto b = blocks_of(f, 4);
  b[0] = std::byte{0};
  b[f.block_bytes] = std::byte{1};
  b[2 * f.block_bytes] = std::byte{2};
  b[3 * f.block_bytes] = std::byte{255};  // 2^127: finite in ggml's rule
  const ScaleCounts n = count_block_scales(f, b, 0, 4);
  EXPECT_EQ(n.subnormal, 2u);
  EXPECT_EQ(n.nan + n.inf, 0u);
}

TEST(BlockScales, Nvfp4UE4M3) {
  EXPECT_EQ(classify_scale(ScaleEncoding::UE4M3, std::data({std::uint8_t{0x01}})), ScaleClass::Subnormal);
  EXPECT_EQ(classify_scale(ScaleEncoding::UE4M3, std::data({std::uint8_t{0x87}})), ScaleClass::Subnormal);
  EXPECT_EQ(classify_scale(ScaleEncoding::UE4M3, std::data({std::uint8_t{0x00}})), ScaleClass::Ordinary);
  EXPECT_EQ(classify_scale(ScaleEncoding::UE4M3, std::data({std::uint8_t{0x08}})), ScaleClass::Ordinary);
  EXPECT_EQ(classify_scale(ScaleEncoding::UE4M3, std::data({std::uint8_t{0x7F}})), ScaleClass::Ordinary);
  EXPECT_EQ(classify_scale(ScaleEncoding::UE4M3, std::data({std::uint8_t{0xFF}})), ScaleClass::Ordinary);
  const BlockFormat& f = *find_format("gguf:nvfp4");
  auto b = blocks_of(f, 2);
  for (auto& x : b) x = std::byte{0x38};
  b[3] = std::byte{0x02};  // the fourth sub-block scale of block 0
  const ScaleCounts n = count_block_scales(f, b, 0, 2);
  EXPECT_EQ(n.subnormal, 1u);
}

TEST(BlockScales, Iq1mAssemblesNibbles) {
  const BlockFormat& f = *find_format("gguf:iq1_m");
  // Spec §7.7 example: words 0x529C, 0x5000, 0xD000, 0x3000 give d = 0x3D55 (ordinary).
  auto b = blocks_of(f, 3);
  const std::uint16_t ordinary[4] = {0x529C, 0x5000, 0xD000, 0x3000};
  // 0x7C01 (NaN): nibbles 1, 0, C, 7; low 12 bits are sub-scales and must not matter.
  const std::uint16_t nan[4] = {0x1FFF, 0x0FFF, 0xCFFF, 0x7FFF};
  // 0x8003 (negative subnormal): nibbles 3, 0, 0, 8.
  const std::uint16_t sub[4] = {0x3000, 0x0000, 0x0000, 0x8000};
  for (int w = 0; w < 4; ++w) {
    put_u16(b, 48 + 2 * w, ordinary[w]);
    put_u16(b, f.block_bytes + 48 + 2 * w, nan[w]);
    put_u16(b, 2 * f.block_bytes + 48 + 2 * w, sub[w]);
  }
  EXPECT_EQ(count_block_scales(f, b, 0, 1).nan + count_block_scales(f, b, 0, 1).subnormal, 0u);
  const ScaleCounts n = count_block_scales(f, b, 0, 3);
  EXPECT_EQ(n.nan, 1u);
  EXPECT_EQ(n.inf, 0u);
  EXPECT_EQ(n.subnormal, 1u);
  // A range starting past block 0.
  EXPECT_EQ(count_block_scales(f, b, 1, 1).nan, 1u);
}

TEST(BlockScales, RangeOutsideInputThrows) {
  const BlockFormat& f = *find_format("gguf:q4_0");
  auto b = blocks_of(f, 2);
  EXPECT_THROW(count_block_scales(f, b, 1, 2), std::exception);
  EXPECT_THROW(count_block_scales(f, b, ~std::uint64_t{0}, 2), std::exception);
}

}  // namespace
}  // namespace onnxq
