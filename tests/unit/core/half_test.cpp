// FLOAT16 / BFLOAT16 conversions: exhaustive over all 2^32 float32 bit patterns against
// an independent reference that rounds in double arithmetic, plus half->float over all
// 2^16 patterns and the spec's examples.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "onnxq/core/half.hpp"
#include "onnxq/core/parallel.hpp"
#include "ref_float16.hpp"

using onnxq::testing::ref_bf16_value;
using onnxq::testing::ref_half_value;
using onnxq::testing::RefRounder;

namespace onnxq {
namespace {

struct Mismatches {
  std::atomic<std::uint64_t> count{0};
  std::atomic<std::uint32_t> first{0};
  void add(std::uint32_t u) {
    if (count.fetch_add(1) == 0) first = u;
  }
};

template <class Convert>
void sweep_all_floats(Convert convert, double (*decode)(std::uint16_t), const RefRounder& ref, Mismatches& bad) {
  std::vector<double> value(65536);
  for (std::uint32_t h = 0; h < 65536; ++h) value[h] = decode(static_cast<std::uint16_t>(h));
  parallel_chunks(default_thread_count(), 65536, [&](unsigned, std::uint64_t hi) {
    for (std::uint32_t lo = 0; lo < 65536; ++lo) {
      const std::uint32_t u = static_cast<std::uint32_t>(hi) << 16 | lo;
      const float x = std::bit_cast<float>(u);
      const double got = value[convert(x)];
      if (std::isnan(x)) {
        if (!std::isnan(got) || std::signbit(got) != std::signbit(x)) bad.add(u);
        continue;
      }
      const double want = ref(x);
      if (!(got == want && std::signbit(got) == std::signbit(want))) bad.add(u);
    }
  });
}

TEST(HalfConversion, FloatToHalfIsRoundToNearestEvenForAllFloats) {
  Mismatches bad;
  sweep_all_floats([](float x) { return float_to_half(x); }, ref_half_value, RefRounder(10, -14, 65504.0), bad);
  EXPECT_EQ(bad.count.load(), 0u) << "first mismatch at float bits 0x" << std::hex << bad.first.load();
}

TEST(HalfConversion, FloatToBfloat16IsRoundToNearestEvenForAllFloats) {
  Mismatches bad;
  sweep_all_floats([](float x) { return float_to_bf16(x); }, ref_bf16_value,
                   RefRounder(7, -126, std::ldexp(255.0, 120)), bad);
  EXPECT_EQ(bad.count.load(), 0u) << "first mismatch at float bits 0x" << std::hex << bad.first.load();
}

TEST(HalfConversion, HalfToFloatIsExactForAllPatterns) {
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const float f = half_to_float(static_cast<std::uint16_t>(h));
    const double want = ref_half_value(static_cast<std::uint16_t>(h));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(f)) << h;
      EXPECT_EQ(std::signbit(f), (h >> 15) != 0) << h;
    } else {
      ASSERT_EQ(static_cast<double>(f), want) << h;
      ASSERT_EQ(std::signbit(f), std::signbit(want)) << h;
      ASSERT_EQ(float_to_half(f), h) << "round trip " << h;
    }
  }
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const float f = bf16_to_float(static_cast<std::uint16_t>(h));
    EXPECT_EQ(std::bit_cast<std::uint32_t>(f), h << 16);
  }
}

TEST(HalfConversion, SpecExamples) {
  EXPECT_EQ(half_to_float(0x3C00), 1.0f);
  EXPECT_EQ(half_to_float(0xC000), -2.0f);
  EXPECT_EQ(half_to_float(0x7BFF), 65504.0f);
  EXPECT_EQ(half_to_float(0x0001), 0x1p-24f);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(half_to_float(0x8000)), 0x80000000u);
  EXPECT_EQ(float_to_half(65520.0f), 0x7C00);
  EXPECT_EQ(float_to_half(std::nextafter(65520.0f, 0.0f)), 0x7BFF);
  EXPECT_EQ(float_to_half(0x1p-25f), 0x0000);
  EXPECT_EQ(float_to_half(1.5f * 0x1p-25f), 0x0001);
  EXPECT_EQ(float_to_half(-0.0f), 0x8000);
  EXPECT_EQ(float_to_half(1.0f + 0x1p-11f), 0x3C00);
  EXPECT_EQ(float_to_half(1.0f + 3 * 0x1p-11f), 0x3C02);
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x3F808000u)), 0x3F80);
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x3F818000u)), 0x3F82);
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x7F7FFFFFu)), 0x7F80);
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x00000001u)), 0x0000);  // subnormal, rounds to 0
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x00008000u)), 0x0000);  // tie to even
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x00018000u)), 0x0002);  // tie to even, kept subnormal
}

// Wider sources (FLOAT64, INT32, INT64) round once, not twice, to the 16-bit types.
TEST(HalfConversion, DoubleRoundsOnceToHalfAndBfloat16) {
  // 1 + 2^-11 + 2^-40: just above a half tie. Rounding to float32 first would land on the
  // tie (1 + 2^-11) and then round down to 1.0; the correct result is 1 + 2^-10.
  const double just_above_tie = 1.0 + 0x1p-11 + 0x1p-40;
  EXPECT_EQ(float_to_half(static_cast<float>(just_above_tie)), 0x3C00);  // the double-rounding trap
  EXPECT_EQ(double_to_half(just_above_tie), 0x3C01);
  EXPECT_EQ(double_to_bf16(1.0 + 0x1p-8 + 0x1p-40), 0x3F81);
  EXPECT_EQ(double_to_bf16(1.0 + 0x1p-8), 0x3F80);
  EXPECT_EQ(double_to_half(1e300), 0x7C00);
  EXPECT_EQ(double_to_half(-1e300), 0xFC00);
  EXPECT_EQ(double_to_bf16(1e300), 0x7F80);
  EXPECT_EQ(double_to_half(1e-300), 0x0000);
  EXPECT_EQ(double_to_half(-1e-300), 0x8000);
  EXPECT_EQ(double_to_half(0x1p-25 + 0x1p-60), 0x0001);  // just above the tie with zero
  EXPECT_TRUE(std::isnan(half_to_float(double_to_half(NAN))));
}

}  // namespace
}  // namespace onnxq
