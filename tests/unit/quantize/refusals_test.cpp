// What quantize_rows refuses, and how it says so: one error naming the row and column, the format or
// the length that was wrong. Nothing here needs ggml.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "onnxq/core/error.hpp"
#include "onnxq/core/half.hpp"
#include "onnxq/decode/quantize_rows.hpp"
#include "onnxq/formats/format.hpp"

namespace onnxq {
namespace {

const BlockFormat& format(const char* name) {
  const BlockFormat* f = find_format(name);
  if (f == nullptr) throw std::logic_error(std::string("no format ") + name);
  return *f;
}

// The error quantize_rows throws for `x` (rows of n_per_row), or "" when it succeeds.
std::string error_of(const BlockFormat& f, const std::vector<float>& x, std::uint64_t n_per_row,
                     const std::vector<float>& importance = {}, ErrorKind* kind = nullptr,
                     std::uint64_t first_row = 0) {
  const std::uint64_t rows = x.size() / n_per_row;
  std::vector<std::byte> out(rows * quantized_row_bytes(f, n_per_row) + 1);
  try {
    quantize_rows({&f, DType::Float, x.data(), rows, n_per_row, importance, out.data(), first_row}, 2);
  } catch (const Error& e) {
    if (kind) *kind = e.kind();
    return e.what();
  }
  return "";
}

TEST(QuantizeRefusals, NanOrInfinityNamesItsRowAndColumn) {
  std::vector<float> x(4 * 64, 0.25f);
  x[2 * 64 + 17] = std::numeric_limits<float>::quiet_NaN();
  ErrorKind kind{};
  EXPECT_EQ(error_of(format("q8_0"), x, 64, {}, &kind),
            "row 2, column 17: the value is NaN; only finite values can be quantized");
  EXPECT_EQ(kind, ErrorKind::InvalidInput);
  x[2 * 64 + 17] = 0.0f;
  x[3 * 64 + 63] = -std::numeric_limits<float>::infinity();
  EXPECT_EQ(error_of(format("q4_0"), x, 64),
            "row 3, column 63: the value is infinite; only finite values can be quantized");
  // Rows that are a run of a larger tensor are named by their place in it.
  EXPECT_EQ(error_of(format("q4_0"), x, 64, {}, nullptr, 1000),
            "row 1003, column 63: the value is infinite; only finite values can be quantized");
}

TEST(QuantizeRefusals, HalfInputIsWidenedAndCheckedToo) {
  std::vector<std::uint16_t> h(64, float_to_half(1.5f));
  h[5] = 0x7C00;  // +inf
  const BlockFormat& f = format("q8_0");
  std::vector<std::byte> out(2 * f.block_bytes);
  EXPECT_THROW(quantize_rows({&f, DType::Float16, h.data(), 1, 64, {}, out.data()}), Error);
  h[5] = float_to_half(1.5f);
  quantize_rows({&f, DType::Float16, h.data(), 1, 64, {}, out.data()});
  std::vector<float> widened(64, 1.5f);
  std::vector<std::byte> direct(out.size());
  quantize_rows({&f, DType::Float, widened.data(), 1, 64, {}, direct.data()});
  EXPECT_EQ(out, direct);
}

TEST(QuantizeRefusals, FormatsThatNeedAnImportanceMatrixSaySo) {
  const std::vector<float> x(256, 0.5f);
  for (const char* name : {"iq2_xxs", "iq2_xs", "iq1_s"}) {
    ErrorKind kind{};
    EXPECT_EQ(error_of(format(name), x, 256, {}, &kind),
              "quantize: " + std::string(format(name).gguf_name) +
                  " needs an importance matrix (ggml refuses it without one)");
    EXPECT_EQ(kind, ErrorKind::InvalidArgument);
  }
  EXPECT_EQ(error_of(format("iq1_m"), x, 256), "");
}

TEST(QuantizeRefusals, RowLengthsAndImportanceLengthsAreChecked) {
  EXPECT_EQ(error_of(format("q4_k"), std::vector<float>(384, 1.0f), 128),
            "quantize: a row of 128 values is not a whole number of Q4_K blocks (256 values each)");
  EXPECT_EQ(error_of(format("q4_0"), std::vector<float>(64, 1.0f), 64, std::vector<float>(32, 1.0f)),
            "quantize: the importance matrix has 32 values; the rows have 64");
  std::vector<float> bad_weights(64, 1.0f);
  bad_weights[9] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(error_of(format("q4_0"), std::vector<float>(64, 1.0f), 64, bad_weights),
            "quantize: importance value 9 is not finite");
  EXPECT_EQ(error_of(format("f16"), std::vector<float>(64, 1.0f), 64),
            "quantize: the target must be a block format, not F16");
}

// Where ggml's grid searches abort on finite input (squared sums overflow), onnxq names the row; where
// ggml still places every group, so does onnxq (IQ2_XXS and IQ1_S here).
TEST(QuantizeRefusals, GridSearchesThatCannotPlaceARowNameIt) {
  std::vector<float> x(3 * 256, 0.01f);
  for (int i = 0; i < 256; ++i)
    x[256 + i] = std::sin(0.7f * static_cast<float>(i)) * 1e20f * static_cast<float>(1 + i % 5);
  const std::vector<float> importance(256, 1.0f);
  for (const char* name : {"iq3_xxs", "iq3_s", "iq2_s", "iq1_m", "iq2_xs"}) {
    ErrorKind kind{};
    const std::string message = error_of(format(name), x, 256, importance, &kind);
    EXPECT_EQ(message.rfind("row 1: ", 0), 0u) << name << ": " << message;
    EXPECT_EQ(error_of(format(name), x, 256, importance, nullptr, 40).rfind("row 41: ", 0), 0u) << name;
    EXPECT_EQ(kind, ErrorKind::InvalidInput) << name;
  }
  for (const char* name : {"iq2_xxs", "iq1_s"}) EXPECT_EQ(error_of(format(name), x, 256, importance), "") << name;
}

TEST(QuantizeRefusals, TheSameBytesForEveryThreadCount) {
  std::vector<float> x(37 * 512);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37f * static_cast<float>(i)) * (1 + i % 7);
  for (const BlockFormat& f : block_formats()) {
    if (quantize_requires_importance(f)) continue;
    std::vector<std::byte> one(37 * quantized_row_bytes(f, 512)), three(one.size());
    quantize_rows({&f, DType::Float, x.data(), 37, 512, {}, one.data()}, 1);
    quantize_rows({&f, DType::Float, x.data(), 37, 512, {}, three.data()}, 3);
    EXPECT_EQ(one, three) << f.gguf_name;
  }
}

}  // namespace
}  // namespace onnxq
