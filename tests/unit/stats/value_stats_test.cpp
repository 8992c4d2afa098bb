// Chunked statistics: merging is exact bookkeeping, variance is numerically sound, and
// the result does not depend on the thread count.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <random>
#include <vector>

#include "onnxq/core/half.hpp"
#include "onnxq/formats/format.hpp"
#include "onnxq/stats/value_stats.hpp"

namespace onnxq {
namespace {

TEST(ValueStats, CountsAndMoments) {
  ValueStats s;
  const float nan = std::nanf(""), inf = INFINITY;
  const std::vector<float> v = {1, 2, 0, -0.0f, nan, inf, -inf, 3};
  s.add(v);
  EXPECT_EQ(s.count, 8u);
  EXPECT_EQ(s.finite, 5u);
  EXPECT_EQ(s.zeros, 2u);
  EXPECT_EQ(s.nan, 1u);
  EXPECT_EQ(s.inf, 2u);
  EXPECT_EQ(s.min, -0.0);
  EXPECT_EQ(s.max, 3.0);
  EXPECT_DOUBLE_EQ(s.mean, 6.0 / 5);
  // population variance of {1,2,0,0,3}: mean 1.2, squares 0.04+0.64+1.44+1.44+3.24 = 6.8
  EXPECT_NEAR(s.variance(), 6.8 / 5, 1e-15);
}

TEST(ValueStats, MergeEqualsOnePass) {
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(1000.0f, 0.01f);  // a large mean, a small spread
  std::vector<float> v(10000);
  for (float& x : v) x = dist(rng);
  ValueStats whole, parts;
  whole.add(v);
  for (std::size_t i = 0; i < v.size(); i += 999) parts.add({v.data() + i, std::min<std::size_t>(999, v.size() - i)});
  EXPECT_EQ(parts.count, whole.count);
  EXPECT_EQ(parts.min, whole.min);
  EXPECT_EQ(parts.max, whole.max);
  EXPECT_NEAR(parts.mean, whole.mean, 1e-9);
  EXPECT_NEAR(parts.stddev(), whole.stddev(), 1e-9);
  // A naive float sum of squares would lose the 0.01 spread entirely at mean 1000.
  EXPECT_NEAR(whole.stddev(), 0.01, 0.001);
}

TEST(ValueStats, EmptyAndNonFinite) {
  ValueStats s;
  s.add({});
  const std::vector<float> v = {std::nanf("")};
  s.add(v);
  EXPECT_EQ(s.finite, 0u);
  EXPECT_EQ(s.variance(), 0.0);
}

// F16 tensor with known values: stats from the decoder equal stats of the values.
TEST(TensorStats, ThreadCountDoesNotChangeTheResult) {
  const BlockFormat& f16 = *find_format("f16");
  const std::size_t n = 3 * kStatsChunkElements + 123;
  std::vector<std::byte> bytes(2 * n);
  std::vector<float> values(n);
  std::mt19937 rng(3);
  std::normal_distribution<float> dist(0.5f, 3.0f);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint16_t h = float_to_half(dist(rng));
    values[i] = half_to_float(h);
    bytes[2 * i] = std::byte(h & 0xFF);
    bytes[2 * i + 1] = std::byte(h >> 8);
  }
  double sum = 0;
  for (float x : values) sum += x;
  const TensorStats one = compute_tensor_stats(f16, bytes, n, 1);
  EXPECT_NEAR(one.values.mean, sum / n, 1e-12);
  std::atomic<std::uint64_t> seen{0};
  for (int t : {2, 3, 7}) {
    const TensorStats many = compute_tensor_stats(f16, bytes, n, t, [&](std::uint64_t b) { seen += b; });
    EXPECT_EQ(many.values.mean, one.values.mean) << t;
    EXPECT_EQ(many.values.m2, one.values.m2) << t;
    EXPECT_EQ(many.values.min, one.values.min);
    EXPECT_EQ(many.values.zeros, one.values.zeros);
  }
  EXPECT_EQ(seen, 3 * bytes.size());
  EXPECT_THROW(compute_tensor_stats(f16, bytes, n + 1, 1), std::exception);
}

TEST(CompareTensors, DifferencesOfTwoDecodings) {
  const BlockFormat& f32 = *find_format("f32");
  const std::vector<float> a = {1, 2, 3, std::nanf(""), INFINITY, 5};
  const std::vector<float> b = {1, 2.5f, 1, std::nanf(""), 7, 5};
  auto as_bytes = [](const std::vector<float>& v) {
    return std::span<const std::byte>(reinterpret_cast<const std::byte*>(v.data()), v.size() * 4);
  };
  const DifferenceStats d = compare_tensors(f32, as_bytes(a), f32, as_bytes(b), a.size(), 2);
  EXPECT_EQ(d.count, 6u);
  EXPECT_EQ(d.differing, 3u);
  EXPECT_EQ(d.nonfinite, 1u);
  EXPECT_EQ(d.max_abs, 2.0);
  EXPECT_NEAR(d.rms(), std::sqrt((0.25 + 4.0) / 5), 1e-15);
}

}  // namespace
}  // namespace onnxq
