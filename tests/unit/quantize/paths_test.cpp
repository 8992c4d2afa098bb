// Every SIMD path quantizes to the scalar reference's bytes (which tests/unit/quantize/ggml_bytes_test.cpp
// holds to ggml's), for every format, with and without importance, on random rows and the hard ones:
// zeros, constants, ties, outliers, subnormals, huge magnitudes. Under qemu this checks NEON.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "isa_paths.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/decode/isa.hpp"
#include "onnxq/decode/quantize_rows.hpp"
#include "onnxq/formats/format.hpp"

namespace onnxq {
namespace {

constexpr std::uint64_t kRowLength = 512;

// Rows of many kinds; a fixed generator, so failures repeat.
std::vector<float> hard_rows() {
  std::uint64_t s = 12345;
  auto uniform = [&] {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(s >> 11) * 0x1.0p-53;
  };
  auto gaussian = [&] { return std::sqrt(-2 * std::log(uniform() + 1e-300)) * std::cos(6.283185307 * uniform()); };
  const double scales[] = {1, 0.02, 1e-40, 1e-30, 1e4, 3e2, 1e-3, 7};
  std::vector<float> x;
  for (double scale : scales)
    for (int row = 0; row < 3; ++row)
      for (std::uint64_t i = 0; i < kRowLength; ++i)
        x.push_back(static_cast<float>(gaussian() * scale / (row == 2 ? std::sqrt(uniform() + 1e-3) : 1)));
  x.insert(x.end(), kRowLength, 0.0f);
  x.insert(x.end(), kRowLength, -3.0f);
  for (std::uint64_t i = 0; i < kRowLength; ++i) x.push_back(static_cast<float>(static_cast<int>(i % 5) - 2));
  for (std::uint64_t i = 0; i < kRowLength; ++i)
    x.push_back(i % 64 == 7 ? 50.0f : 0.01f * static_cast<float>(gaussian()));
  for (std::uint64_t i = 0; i < kRowLength; ++i) x.push_back(i % 2 ? static_cast<float>(gaussian()) : 0.0f);
  return x;
}

std::vector<float> weights() {
  std::vector<float> w(kRowLength);
  for (std::uint64_t i = 0; i < kRowLength; ++i) w[i] = i % 37 == 5 ? 0.0f : 0.25f + static_cast<float>(i % 11);
  return w;
}

std::vector<std::byte> quantized(const BlockFormat& f, const std::vector<float>& x, std::span<const float> w) {
  const std::uint64_t rows = x.size() / kRowLength;
  std::vector<std::byte> out(rows * quantized_row_bytes(f, kRowLength));
  quantize_rows({&f, DType::Float, x.data(), rows, kRowLength, w, out.data()}, 2);
  return out;
}

TEST(QuantizePaths, EverySimdPathWritesTheScalarBytes) {
  const std::vector<float> x = hard_rows();
  const std::vector<float> w = weights();
  testing::IsaGuard guard;
  for (const BlockFormat& f : block_formats()) {
    select_isa("scalar");
    const std::vector<std::byte> want_weighted = quantized(f, x, w);
    const std::vector<std::byte> want_plain = quantize_requires_importance(f) ? want_weighted : quantized(f, x, {});
    for (const std::string& path : testing::simd_paths()) {
      select_isa(path);
      EXPECT_TRUE(quantized(f, x, w) == want_weighted) << f.gguf_name << " with importance on " << path;
      if (!quantize_requires_importance(f)) {
        EXPECT_TRUE(quantized(f, x, {}) == want_plain) << f.gguf_name << " on " << path;
      }
    }
  }
}

// Each path checks rows for NaN and infinities with its own vectors (four sums of 16 lanes, then
// 16 lanes, then single values): a bad value is found in every part of a row, on every path.
TEST(QuantizePaths, EveryPathRefusesANonFiniteValueAnywhereInARow) {
  testing::IsaGuard guard;
  const BlockFormat* f = nullptr;
  for (const BlockFormat& g : block_formats())
    if (g.gguf_name == "Q4_0") f = &g;
  ASSERT_NE(f, nullptr);
  const float bad[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                       -std::numeric_limits<float>::infinity()};
  std::vector<std::string> paths = testing::simd_paths();
  paths.insert(paths.begin(), "scalar");
  for (const std::string& path : paths) {
    select_isa(path);
    for (const std::uint64_t n : {32u, 96u, 160u}) {  // 160: 64 + 64 + 32, every part of the loops
      for (std::uint64_t at = 0; at < n; ++at) {
        for (const float value : bad) {
          std::vector<float> x(2 * n, std::numeric_limits<float>::max());  // huge, but finite
          x[n + at] = value;
          std::vector<std::byte> out(2 * quantized_row_bytes(*f, n));
          try {
            quantize_rows({f, DType::Float, x.data(), 2, n, {}, out.data()}, 1);
            ADD_FAILURE() << path << ": row of " << n << ", column " << at << " = " << value << " was quantized";
          } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("row 1, column " + std::to_string(at) + ":"), std::string::npos)
                << path << ": " << e.what();
          }
        }
      }
    }
  }
}

// Where a SIMD kernel checks the values in the pass that quantizes them (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0,
// Q8_1, Q8_K, Q2_0, TQ1_0, TQ2_0, MXFP4 and NVFP4), a bad value is found in every block, in a group
// of 16 blocks and in the blocks after the last group, and with an importance matrix; the error
// names the first bad value. Every block here has a tie for the largest magnitude (16 and -16), so
// the lookup of the first one also meets NaN (reading nothing outside the rows: the ASan stage runs
// this).
TEST(QuantizePaths, KernelsThatCheckAsTheyQuantizeRefuseEveryNonFiniteValue) {
  testing::IsaGuard guard;
  constexpr std::uint64_t kRows = 3, kLength = 768;  // 72 blocks of 32 (4 groups of 16, then 8), or 9 of 256
  std::vector<float> clean(kRows * kLength);
  for (std::uint64_t i = 0; i < clean.size(); ++i)
    clean[i] = (i % 2 ? -1.0f : 1.0f) * static_cast<float>(i % 32 / 2 + 1);
  const std::vector<float> w(kLength, 1.0f);
  const float bad[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                       -std::numeric_limits<float>::infinity()};
  for (const char* name :
       {"Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q8_1", "Q8_K", "Q2_0", "TQ1_0", "TQ2_0", "MXFP4", "NVFP4"}) {
    const BlockFormat* f = nullptr;
    for (const BlockFormat& g : block_formats())
      if (g.gguf_name == name) f = &g;
    ASSERT_NE(f, nullptr) << name;
    std::vector<std::byte> out(kRows * quantized_row_bytes(*f, kLength));
    for (const std::string& path : testing::simd_paths()) {
      select_isa(path);
      for (std::uint64_t at = 0; at < clean.size(); at += 5) {
        for (const float value : bad) {
          for (const bool weighted : {false, true}) {
            if (weighted && (!quantize_uses_importance(*f) || at % 31 != 0)) continue;
            std::vector<float> x = clean;
            x[at] = value;
            if (at + 40 < x.size()) x[at + 40] = -value;  // a later one, in the same block or the next
            try {
              const std::span<const float> importance = weighted ? std::span<const float>(w) : std::span<const float>();
              quantize_rows({f, DType::Float, x.data(), kRows, kLength, importance, out.data()}, 1);
              ADD_FAILURE() << name << " on " << path << ": value " << at << " = " << value << " was quantized";
            } catch (const Error& e) {
              const std::string want =
                  "row " + std::to_string(at / kLength) + ", column " + std::to_string(at % kLength) + ":";
              EXPECT_NE(std::string(e.what()).find(want), std::string::npos)
                  << name << " on " << path << ": " << e.what();
            }
          }
        }
      }
    }
  }
}

// Q3_K's descent stops a group of searches once 16 steps in a row changed none of them: on many
// gaussian rows, some search changes late in every pass, so a rule that stops a step early shows.
TEST(QuantizePaths, Q3KDescentStopsWhereTheScalarOneDoes) {
  testing::IsaGuard guard;
  const BlockFormat* f = nullptr;
  for (const BlockFormat& g : block_formats())
    if (g.gguf_name == "Q3_K") f = &g;
  ASSERT_NE(f, nullptr);
  constexpr std::uint64_t kRows = 1024, kLength = 1024;
  std::vector<float> x(kRows * kLength);
  std::uint64_t s = 99;
  auto uniform = [&] {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return (static_cast<double>(s >> 11) + 0.5) * 0x1.0p-53;
  };
  for (float& v : x) v = static_cast<float>(std::sqrt(-2 * std::log(uniform())) * std::cos(6.283185307 * uniform()));
  auto run = [&] {
    std::vector<std::byte> out(kRows * quantized_row_bytes(*f, kLength));
    quantize_rows({f, DType::Float, x.data(), kRows, kLength, {}, out.data()}, 2);
    return out;
  };
  select_isa("scalar");
  const std::vector<std::byte> want = run();
  for (const std::string& path : testing::simd_paths()) {
    select_isa(path);
    EXPECT_TRUE(run() == want) << path;
  }
}

}  // namespace
}  // namespace onnxq
