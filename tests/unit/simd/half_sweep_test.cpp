// Exhaustive 16-bit sweep on every SIMD path, against the independent textbook reference
// (tests/support/ref_float16.hpp), not the library's own conversions: every FLOAT16 and BFLOAT16
// pattern decoded to every other float dtype, and for each of the 65536 upper halves of a float32,
// its lower half at and around the FLOAT16 and BFLOAT16 rounding ties, converted to both. Sharded
// by the 16-bit pattern so that each ctest entry takes about a second.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "isa_paths.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/decode/isa.hpp"
#include "onnxq/formats/format.hpp"
#include "ref_float16.hpp"

namespace onnxq {
namespace {

using testing::IsaGuard;
using testing::simd_paths;

constexpr int kShards = 8;
constexpr std::uint32_t kPerShard = 65536 / kShards;

// The element at `p` of dtype `out` holds exactly `want` (NaN: any NaN; zeros keep their sign).
bool holds(const std::byte* p, DType out, double want) {
  double got = 0;
  if (out == DType::Float) {
    float f;
    std::memcpy(&f, p, 4);
    got = f;
  } else if (out == DType::Double) {
    std::memcpy(&got, p, 8);
  } else {
    std::uint16_t h;
    std::memcpy(&h, p, 2);
    got = out == DType::Float16 ? testing::ref_half_value(h) : testing::ref_bf16_value(h);
  }
  if (std::isnan(want)) return std::isnan(got);
  return got == want && std::signbit(got) == std::signbit(want);
}

// The exact value of x in `out` after one round to nearest even.
double rounded(double x, DType out) {
  if (std::isnan(x) || out == DType::Double || out == DType::Float) return x;  // inputs here are exact in float32
  const float f = static_cast<float>(x);
  return out == DType::Float16 ? testing::ref_to_half()(f) : testing::ref_to_bf16()(f);
}

std::vector<std::byte> decode(const std::string& path, const char* format, const std::vector<std::byte>& src,
                              std::size_t n, DType out) {
  select_isa(path);
  std::vector<std::byte> dst(n * dtype_info(out).bits / 8);
  decode_blocks(*find_format(format), src, 0, n, out, dst.data(), 1);
  return dst;
}

class HalfSweep : public ::testing::TestWithParam<int> {};

TEST_P(HalfSweep, SixteenBitPatternsOnEverySimdPath) {
  const std::vector<std::string> paths = simd_paths();
  if (paths.empty()) GTEST_SKIP() << "no SIMD path on this CPU/build (SimdCoverage checks that it truly has none)";
  IsaGuard guard;
  const std::uint32_t first = static_cast<std::uint32_t>(GetParam()) * kPerShard;
  constexpr DType kAll[] = {DType::Float, DType::Float16, DType::BFloat16, DType::Double};

  // 16-bit sources: every pattern of this shard, as FLOAT16 and as BFLOAT16.
  std::vector<std::byte> patterns(kPerShard * 2);
  for (std::uint32_t i = 0; i < kPerShard; ++i) {
    const auto h = static_cast<std::uint16_t>(first + i);
    std::memcpy(&patterns[2 * i], &h, 2);
  }
  // float32 sources: upper half from this shard, lower half at and near the ties of both targets
  // (FLOAT16 normals keep 10 of 23 fraction bits: bit 12 is the half-way bit; BFLOAT16 keeps 7: bit 15).
  // Every value of bits 12..15, each with bits 0..11 at and around their own middle and ends.
  constexpr std::uint32_t kLow12[] = {0x000, 0x001, 0x7FF, 0x800, 0x801, 0xFFE, 0xFFF};
  std::vector<std::uint32_t> floats;
  for (std::uint32_t i = 0; i < kPerShard; ++i)
    for (std::uint32_t top = 0; top < 16; ++top)
      for (std::uint32_t lo : kLow12) floats.push_back(((first + i) << 16) | (top << 12) | lo);
  std::vector<std::byte> float_bytes(floats.size() * 4);
  std::memcpy(float_bytes.data(), floats.data(), float_bytes.size());

  for (const std::string& path : paths) {
    std::size_t bad = 0;
    for (const char* source : {"f16", "bf16"})
      for (DType out : kAll) {
        const bool half = std::string(source) == "f16";
        if (out == (half ? DType::Float16 : DType::BFloat16)) continue;  // a copy of bits
        const std::vector<std::byte> got = decode(path, source, patterns, kPerShard, out);
        const std::size_t size = dtype_info(out).bits / 8;
        for (std::uint32_t i = 0; i < kPerShard; ++i) {
          const auto h = static_cast<std::uint16_t>(first + i);
          const double value = half ? testing::ref_half_value(h) : testing::ref_bf16_value(h);
          if (!holds(&got[i * size], out, rounded(value, out)) && ++bad <= 5)
            ADD_FAILURE() << path << ": " << source << " 0x" << std::hex << h << " -> " << dtype_info(out).onnx_name;
        }
      }
    for (DType out : {DType::Float16, DType::BFloat16}) {
      const std::vector<std::byte> got = decode(path, "f32", float_bytes, floats.size(), out);
      for (std::size_t i = 0; i < floats.size(); ++i) {
        const float x = std::bit_cast<float>(floats[i]);
        if (!holds(&got[i * 2], out, rounded(x, out)) && ++bad <= 5)
          ADD_FAILURE() << path << ": f32 0x" << std::hex << floats[i] << " -> " << dtype_info(out).onnx_name;
      }
    }
    EXPECT_EQ(bad, 0u) << path;
  }
}

INSTANTIATE_TEST_SUITE_P(Shards, HalfSweep, ::testing::Range(0, kShards),
                         [](const auto& info) { return "patterns_" + std::to_string(info.param * kPerShard); });

}  // namespace
}  // namespace onnxq
