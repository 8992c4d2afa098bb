// quantize_tensor_rows: a whole array's rows quantized a run at a time give quantize_rows's bytes
// for the whole array, from float32 (aligned or not), float16 and float64; rows are numbered from
// the array's first in errors; the checks of quantize_row_length and importance_weights.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "onnxq/core/error.hpp"
#include "onnxq/core/half.hpp"
#include "onnxq/decode/quantize_rows.hpp"
#include "onnxq/formats/format.hpp"

namespace onnxq {
namespace {

const BlockFormat& rows_format(const char* name) { return *find_format(name); }

std::vector<float> ramp(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = std::sin(0.37f * static_cast<float>(i)) * static_cast<float>(1 + i % 7);
  return v;
}

Tensor float_tensor(const std::vector<float>& v, Shape shape) {
  return Tensor::from_bytes(DType::Float, std::move(shape), std::as_bytes(std::span(v)));
}

std::vector<std::byte> whole(const Tensor& t, const BlockFormat& f, std::span<const float> importance = {}) {
  std::vector<std::byte> out;
  quantize_tensor_rows(t, f, importance, 2, "in.npy",
                       [&](std::span<const std::byte> b) { out.insert(out.end(), b.begin(), b.end()); });
  return out;
}

std::vector<std::byte> direct(const std::vector<float>& v, std::uint64_t rows, std::uint64_t n, const BlockFormat& f,
                              std::span<const float> importance = {}) {
  std::vector<std::byte> out(rows * quantized_row_bytes(f, n));
  quantize_rows({&f, DType::Float, v.data(), rows, n, importance, out.data()}, 1);
  return out;
}

TEST(QuantizeTensorRows, RunsOfRowsGiveTheWholeArraysBytes) {
  // Rows of 2^18 values: runs of 16 rows (4 Mi values), so 17 rows take two runs, the last one short.
  const std::uint64_t n = std::uint64_t{1} << 18, rows = 17;
  const std::vector<float> v = ramp(rows * n);
  const Tensor t = float_tensor(v, {static_cast<std::int64_t>(rows), static_cast<std::int64_t>(n)});
  std::size_t calls = 0;
  quantize_tensor_rows(t, rows_format("q8_0"), {}, 0, "x", [&](std::span<const std::byte>) { ++calls; });
  EXPECT_EQ(calls, 2u);
  EXPECT_EQ(whole(t, rows_format("q8_0")), direct(v, rows, n, rows_format("q8_0")));
}

TEST(QuantizeTensorRows, Float64RoundsToFloat32AndFloat16Widens) {
  const std::uint64_t n = 256, rows = 3;
  const std::vector<float> v = ramp(rows * n);
  std::vector<double> d(v.begin(), v.end());
  const Tensor t64 = Tensor::from_bytes(DType::Double, {3, 256}, std::as_bytes(std::span(d)));
  const std::vector<float> w = ramp(n);
  EXPECT_EQ(whole(t64, rows_format("q4_k"), w), direct(v, rows, n, rows_format("q4_k"), w));

  std::vector<std::uint16_t> h(v.size());
  std::vector<float> widened(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    h[i] = float_to_half(v[i]);
    widened[i] = half_to_float(h[i]);
  }
  const Tensor t16 = Tensor::from_bytes(DType::Float16, {3, 256}, std::as_bytes(std::span(h)));
  EXPECT_EQ(whole(t16, rows_format("q4_0")), direct(widened, rows, n, rows_format("q4_0")));
}

TEST(QuantizeTensorRows, AViewAtAnOddAddressIsCopiedAligned) {
  const std::uint64_t n = 64, rows = 2;
  const std::vector<float> v = ramp(rows * n);
  auto buffer = std::make_shared<std::vector<std::byte>>(v.size() * 4 + 1);
  std::memcpy(buffer->data() + 1, v.data(), v.size() * 4);
  const Tensor view =
      Tensor::view(DType::Float, {2, 64}, std::span<const std::byte>(buffer->data() + 1, v.size() * 4), buffer);
  EXPECT_EQ(whole(view, rows_format("q8_0")), direct(v, rows, n, rows_format("q8_0")));
}

TEST(QuantizeTensorRows, ErrorsNameTheSourceAndTheRowInTheArray) {
  const std::uint64_t n = std::uint64_t{1} << 18, rows = 17;
  std::vector<float> v(rows * n, 1.0f);
  v[16 * n + 7] = std::nanf("");  // in the second run of rows
  const Tensor t = float_tensor(v, {17, static_cast<std::int64_t>(n)});
  try {
    whole(t, rows_format("q8_0"));
    FAIL() << "a NaN was quantized";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
    EXPECT_TRUE(std::string(e.what()).starts_with("in.npy: row 16, column 7")) << e.what();
  }
}

TEST(QuantizeTensorRows, RowLengthChecks) {
  const std::vector<float> v = ramp(64);
  EXPECT_EQ(quantize_row_length(float_tensor(v, {2, 32}), rows_format("q8_0"), "a"), 32u);
  auto message = [](const Tensor& t, const char* f) {
    try {
      quantize_row_length(t, rows_format(f), "a.npy");
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(float_tensor(v, {2, 32}), "q4_k"),
            "a.npy: the last dimension is 32, not a multiple of 256 (one Q4_K block)");
  EXPECT_EQ(message(float_tensor({1.0f}, {}), "q8_0"), "a.npy: a scalar; quantize takes rows (at least one dimension)");
  EXPECT_EQ(message(Tensor::zeros(DType::Int32, {32}), "q8_0"),
            "a.npy: a i32 array; quantize takes float32, float16 or float64");
  EXPECT_EQ(message(float_tensor({}, {0}), "q8_0"),
            "a.npy: the last dimension is 0, not a multiple of 32 (one Q8_0 block)");
}

TEST(ImportanceWeights, OneFloatPerColumn) {
  const std::vector<double> d = {0.5, 2.0, 1e-3};
  const Tensor t = Tensor::from_bytes(DType::Double, {3}, std::as_bytes(std::span(d)));
  EXPECT_EQ(importance_weights(t, 3, "w.npy"), (std::vector<float>{0.5f, 2.0f, 1e-3f}));
  const std::vector<float> f = {1, 2, 3};
  EXPECT_EQ(importance_weights(float_tensor(f, {3}), 3, "w.npy"), f);
  EXPECT_THROW(importance_weights(float_tensor(f, {3}), 4, "w.npy"), Error);
  EXPECT_THROW(importance_weights(float_tensor(f, {1, 3}), 3, "w.npy"), Error);
  try {
    importance_weights(Tensor::zeros(DType::Int32, {3}), 3, "w.npy");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "w.npy: the importance matrix must be float32 or float64");
  }
}

}  // namespace
}  // namespace onnxq
