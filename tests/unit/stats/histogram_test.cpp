// Value and block-scale histograms (onnxq/stats/histogram.hpp), scale field values, and diff's
// normalized MSE: small inputs whose answers are worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "onnxq/core/error.hpp"
#include "onnxq/core/half.hpp"
#include "onnxq/formats/format.hpp"
#include "onnxq/stats/block_scales.hpp"
#include "onnxq/stats/histogram.hpp"
#include "onnxq/stats/value_stats.hpp"

namespace onnxq {
namespace {

std::vector<std::byte> f32_bytes(const std::vector<float>& values) {
  std::vector<std::byte> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

TEST(ValueHistogram, BinsEdgesAndSkippedValues) {
  const auto bytes = f32_bytes({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, NAN, INFINITY, -1, 9.5f});
  const PackedBytes src(*find_format("f32"), bytes);
  const Histogram h = value_histogram(src, 14, 0.0, 9.0, 3);
  EXPECT_EQ(h.lo, 0.0);
  EXPECT_EQ(h.hi, 9.0);
  // [0, 3), [3, 6), [6, 9]: hi falls in the last bin; NaN, Inf and values outside are not counted.
  EXPECT_EQ(h.counts, (std::vector<std::uint64_t>{3, 3, 4}));
  const Histogram one = value_histogram(src, 14, 2.0, 2.0, 8);  // lo == hi: one bin
  EXPECT_EQ(one.counts, (std::vector<std::uint64_t>{1}));
  EXPECT_THROW(value_histogram(src, 13, 0.0, 9.0, 3), Error);
}

TEST(ValueHistogram, SameCountsForAnyThreadCount) {
  std::vector<float> values(3 * kChunkElements + 17);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::sin(static_cast<float>(i) * 0.37f);
  const auto bytes = f32_bytes(values);
  const PackedBytes src(*find_format("f32"), bytes);
  const Histogram one = value_histogram(src, values.size(), -1.0, 1.0, 50, 1);
  const Histogram three = value_histogram(src, values.size(), -1.0, 1.0, 50, 3);
  EXPECT_EQ(one.counts, three.counts);
  std::uint64_t total = 0;
  for (auto c : one.counts) total += c;
  EXPECT_EQ(total, values.size());
}

TEST(ScaleValue, EachEncoding) {
  const std::uint8_t half_one[2] = {0x00, 0x3C}, half_minus_two[2] = {0x00, 0xC0};
  EXPECT_EQ(scale_value(ScaleEncoding::Half, half_one), 1.0);
  EXPECT_EQ(scale_value(ScaleEncoding::Half, half_minus_two), -2.0);
  const float quarter = 0.25f;
  std::uint8_t f32[4];
  std::memcpy(f32, &quarter, 4);
  EXPECT_EQ(scale_value(ScaleEncoding::Float32, f32), 0.25);
  const std::uint8_t e128 = 128, e130 = 130, e0 = 0;
  EXPECT_EQ(scale_value(ScaleEncoding::E8M0, &e128), 1.0);
  EXPECT_EQ(scale_value(ScaleEncoding::E8M0, &e130), 4.0);
  EXPECT_EQ(scale_value(ScaleEncoding::E8M0, &e0), std::ldexp(1.0, -128));
  const std::uint8_t one = 0x38, one_and_half = 0x3C, sub = 0x01, zero = 0x7F, high_bit = 0xB8;
  EXPECT_EQ(scale_value(ScaleEncoding::UE4M3, &one), 1.0);           // E = 7, M = 0
  EXPECT_EQ(scale_value(ScaleEncoding::UE4M3, &one_and_half), 1.5);  // M = 4
  EXPECT_EQ(scale_value(ScaleEncoding::UE4M3, &sub), std::ldexp(1.0 / 8, -6));
  EXPECT_EQ(scale_value(ScaleEncoding::UE4M3, &zero), 0.0);
  EXPECT_EQ(scale_value(ScaleEncoding::UE4M3, &high_bit), 1.0);  // bit 7 ignored
  // iq1_m: binary16 1.0 (0x3C00) spread over the top nibbles of four words: 0, 0, 0xC, 0x3.
  const std::uint8_t iq1m[8] = {0x00, 0x00, 0x00, 0x00, 0x00, 0xC0, 0x00, 0x30};
  EXPECT_EQ(scale_value(ScaleEncoding::Iq1mHalf, iq1m), 1.0);
}

// q8_0 blocks (d, then 32 int8) with the given scales.
std::vector<std::byte> q8_0_blocks(const std::vector<float>& scales) {
  std::vector<std::byte> bytes(scales.size() * 34);
  for (std::size_t i = 0; i < scales.size(); ++i) {
    const std::uint16_t h = float_to_half(scales[i]);
    bytes[i * 34] = std::byte(h & 0xFF);
    bytes[i * 34 + 1] = std::byte(h >> 8);
  }
  return bytes;
}

TEST(ScaleHistogram, QuarterOctavesOverTheRangeUsed) {
  // log2 |d|: 0, 1, log2 3 = 1.58 (bin 1.5), -1 (negative d), log2 1.1904 = 0.2515 (just past the
  // quarter at 2^0.25 = 1.1892); a zero and a NaN are set apart.
  const auto bytes = q8_0_blocks({1.0f, 2.0f, 3.0f, -0.5f, 0.0f, NAN, 1.1904296875f});
  const PackedBytes src(*find_format("q8_0"), bytes);
  const ScaleHistogram h = scale_histogram(src, 1);
  EXPECT_EQ(h.blocks, 7u);
  EXPECT_EQ(h.zero_or_nonfinite, 2u);
  EXPECT_EQ(h.log2_abs.lo, -1.0);
  EXPECT_EQ(h.log2_abs.hi, 1.75);
  //                           -1          0  0.25        1     1.5
  EXPECT_EQ(h.log2_abs.counts, (std::vector<std::uint64_t>{1, 0, 0, 0, 1, 1, 0, 0, 1, 0, 1}));
  const auto plain = f32_bytes({1, 2});
  EXPECT_EQ(scale_histogram(PackedBytes(*find_format("f32"), plain)).blocks, 0u);  // no scales
}

TEST(DifferenceStats, NormalizedMseIsRelativeToB) {
  const auto a = f32_bytes({1, 2, 3, 0}), b = f32_bytes({1, 1, 1, 1});
  const BlockFormat& f32 = *find_format("f32");
  const DifferenceStats d = compare_tensors(f32, a, f32, b, 4);
  EXPECT_EQ(d.sum_sq, 0 + 1 + 4 + 1);
  EXPECT_EQ(d.sum_sq_b, 4.0);  // b's energy counts equal values too
  EXPECT_EQ(d.normalized_mse(), 1.5);
  const auto zeros = f32_bytes({0, 0, 0, 0});
  EXPECT_EQ(compare_tensors(f32, zeros, f32, zeros, 4).normalized_mse(), 0.0);
  EXPECT_EQ(compare_tensors(f32, a, f32, zeros, 4).normalized_mse(), std::numeric_limits<double>::infinity());
  const auto with_inf = f32_bytes({INFINITY, 2, 3, 0});  // a non-finite difference leaves b's value out
  EXPECT_EQ(compare_tensors(f32, with_inf, f32, b, 4).sum_sq_b, 3.0);
}

}  // namespace
}  // namespace onnxq
