// Every SIMD path quantizes to the scalar reference's bytes (which tests/unit/quantize/ggml_bytes_test.cpp
// holds to ggml's), for every format, with and without importance, on random rows and the hard ones:
// zeros, constants, ties, outliers, subnormals, huge magnitudes. Under qemu this checks NEON.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "isa_paths.hpp"
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

}  // namespace
}  // namespace onnxq
