// DequantizePacked-29: every attribute and length rule has a test, plus empty tensors
// and the operator's own q4_0 example.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <vector>

#include "onnxq/core/error.hpp"
#include "onnxq/ops/dequantize_packed.hpp"

namespace onnxq {
namespace {

Tensor bytes_tensor(std::size_t n, std::uint8_t fill = 0) {
  std::vector<std::byte> b(n, std::byte{fill});
  return Tensor::from_bytes(DType::UInt8, {static_cast<std::int64_t>(n)}, b);
}

// Runs the operator and returns the error (kind and message) it must throw.
Error error_of(const Tensor& x, const DequantizePackedAttributes& attrs) {
  try {
    dequantize_packed(x, attrs);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no error for format " << attrs.format << " shape " << shape_to_string(attrs.shape);
  return Error(ErrorKind::Io, "");
}

void expect_rule(const Tensor& x, const DequantizePackedAttributes& attrs, ErrorKind kind, const std::string& words) {
  const Error e = error_of(x, attrs);
  EXPECT_EQ(e.kind(), kind) << e.what();
  EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
}

TEST(DequantizePacked, SpecExampleTwoQ4_0Blocks) {
  // d = 1.0, 0.5; q bytes 0x10+i: low nibble i, high nibble 1 → y[j] = d*(j-8), y[j+16] = d*(1-8).
  std::vector<std::byte> b;
  for (std::uint16_t d : {0x3C00, 0x3800}) {
    b.push_back(std::byte(d & 0xFF));
    b.push_back(std::byte(d >> 8));
    for (int i = 0; i < 16; ++i) b.push_back(std::byte(0x10 + i));
  }
  const Tensor x = Tensor::from_bytes(DType::UInt8, {36}, b);
  const Tensor y = dequantize_packed(x, {"gguf:q4_0", {2, 32}, DType::Float});
  ASSERT_EQ(y.shape(), (Shape{2, 32}));
  ASSERT_EQ(y.dtype(), DType::Float);
  for (int blk = 0; blk < 2; ++blk) {
    const float d = blk == 0 ? 1.0f : 0.5f;
    for (int j = 0; j < 16; ++j) {
      EXPECT_EQ(y.at<float>(blk * 32 + j), d * static_cast<float>(j - 8));
      EXPECT_EQ(y.at<float>(blk * 32 + j + 16), d * -7.0f);
    }
  }
  // q = 8 with a negative scale gives -0.0 (sign of zero is part of the result).
  b[0] = std::byte{0x00};
  b[1] = std::byte{0xBC};  // d = -1.0
  const Tensor y2 = dequantize_packed(Tensor::from_bytes(DType::UInt8, {36}, b), {"gguf:q4_0", {2, 32}, DType::Float});
  EXPECT_EQ(std::bit_cast<std::uint32_t>(y2.at<float>(8)), 0x80000000u);
}

TEST(DequantizePacked, EveryOutputDtypeHasTheRightShapeAndType) {
  for (DType out : {DType::Float, DType::Float16, DType::BFloat16, DType::Double}) {
    const Tensor y = dequantize_packed(bytes_tensor(3 * 2 * 144, 0x3C), {"gguf:q4_k", {3, 512}, out});
    EXPECT_EQ(y.dtype(), out);
    EXPECT_EQ(y.shape(), (Shape{3, 512}));
    EXPECT_EQ(y.bytes().size(), 3u * 512 * dtype_info(out).bits / 8);
  }
}

TEST(DequantizePacked, UnknownOrMisspelledFormat) {
  expect_rule(bytes_tensor(18), {"gguf:q9_0", {32}, DType::Float}, ErrorKind::InvalidArgument, "unknown format");
  expect_rule(bytes_tensor(18), {"gguf:Q4_0", {32}, DType::Float}, ErrorKind::InvalidArgument, "case-sensitive");
  expect_rule(bytes_tensor(18), {"q4_0", {32}, DType::Float}, ErrorKind::InvalidArgument, "unknown format");
  expect_rule(bytes_tensor(64), {"gguf:f16", {32}, DType::Float}, ErrorKind::InvalidArgument, "unknown format");
}

TEST(DequantizePacked, OutputDtypeMustBeAFloatType) {
  for (DType out : {DType::Int8, DType::UInt8, DType::Int32, DType::Complex64, DType::Undefined})
    expect_rule(bytes_tensor(18), {"gguf:q4_0", {32}, out}, ErrorKind::InvalidArgument, "output_dtype");
}

TEST(DequantizePacked, RankAtLeastOne) {
  expect_rule(bytes_tensor(0), {"gguf:q4_0", {}, DType::Float}, ErrorKind::InvalidArgument, "rank at least 1");
}

TEST(DequantizePacked, DimensionsNonNegative) {
  expect_rule(bytes_tensor(18), {"gguf:q4_0", {-1, 32}, DType::Float}, ErrorKind::InvalidArgument,
              "negative dimension");
  expect_rule(bytes_tensor(0), {"gguf:q4_0", {0, -32}, DType::Float}, ErrorKind::InvalidArgument, "negative dimension");
}

TEST(DequantizePacked, LastDimensionMultipleOfBlockEvenWhenEmpty) {
  expect_rule(bytes_tensor(18), {"gguf:q4_0", {33}, DType::Float}, ErrorKind::InvalidArgument, "not a multiple of 32");
  expect_rule(bytes_tensor(0), {"gguf:q4_0", {0, 16}, DType::Float}, ErrorKind::InvalidArgument,
              "not a multiple of 32");
  expect_rule(bytes_tensor(0), {"gguf:q4_k", {0, 32}, DType::Float}, ErrorKind::InvalidArgument,
              "not a multiple of 256");
}

TEST(DequantizePacked, ByteLengthMustBeExact) {
  expect_rule(bytes_tensor(35), {"gguf:q4_0", {2, 32}, DType::Float}, ErrorKind::InvalidInput, "needs");
  expect_rule(bytes_tensor(37), {"gguf:q4_0", {2, 32}, DType::Float}, ErrorKind::InvalidInput, "= 36");
  expect_rule(bytes_tensor(18), {"gguf:q4_0", {0, 32}, DType::Float}, ErrorKind::InvalidInput, "= 0");
  expect_rule(bytes_tensor(17), {"gguf:mxfp4", {2, 32}, DType::Float}, ErrorKind::InvalidInput, "= 34");
}

TEST(DequantizePacked, ByteLengthOverflowIsCaught) {
  // product(shape[:-1]) * (shape[-1] / B) * S = 2^62 * 2 * 18 passes 2^64.
  expect_rule(bytes_tensor(18), {"gguf:q4_0", {std::int64_t{1} << 62, 64}, DType::Float}, ErrorKind::InvalidArgument,
              "overflows");
  expect_rule(bytes_tensor(18), {"gguf:q4_0", {std::int64_t{1} << 40, std::int64_t{1} << 40, 32}, DType::Float},
              ErrorKind::InvalidArgument, "overflows");
  // Output bytes (8 per DOUBLE) can overflow where the input length does not.
  expect_rule(bytes_tensor(18), {"gguf:q4_0", {std::int64_t{1} << 61, 32}, DType::Double}, ErrorKind::InvalidArgument,
              "overflows");
}

TEST(DequantizePacked, HugeDimensionsBesideAZeroAreEmpty) {
  const Tensor y = dequantize_packed(bytes_tensor(0), {"gguf:q4_0", {0, std::int64_t{1} << 62, 32}, DType::Float});
  EXPECT_EQ(y.element_count(), 0u);
}

TEST(DequantizePacked, InputMustBeOneDimensionalUint8) {
  std::vector<std::byte> b(36);
  expect_rule(Tensor::from_bytes(DType::Int8, {36}, b), {"gguf:q4_0", {2, 32}, DType::Float}, ErrorKind::InvalidInput,
              "UINT8");
  expect_rule(Tensor::from_bytes(DType::UInt8, {2, 18}, b), {"gguf:q4_0", {2, 32}, DType::Float},
              ErrorKind::InvalidInput, "1-D");
}

TEST(DequantizePacked, EmptyTensorsGiveEmptyOutputs) {
  const Tensor a = dequantize_packed(bytes_tensor(0), {"gguf:q4_0", {0, 32}, DType::Float});
  EXPECT_EQ(a.shape(), (Shape{0, 32}));
  EXPECT_EQ(a.element_count(), 0u);
  EXPECT_EQ(a.bytes().size(), 0u);
  const Tensor b = dequantize_packed(bytes_tensor(0), {"gguf:q2_0", {2, 0, 64}, DType::Float16});
  EXPECT_EQ(b.shape(), (Shape{2, 0, 64}));
  EXPECT_EQ(b.dtype(), DType::Float16);
  EXPECT_EQ(b.bytes().size(), 0u);
  const Tensor c = dequantize_packed(bytes_tensor(0), {"gguf:q4_k", {0}, DType::Double});
  EXPECT_EQ(c.element_count(), 0u);
}

TEST(DequantizePacked, CheckAloneReturnsTheFormatRow) {
  const BlockFormat& f = check_dequantize_packed({"gguf:iq2_s", {4, 256}, DType::BFloat16}, 4 * 82);
  EXPECT_EQ(f.ggml_type, 22u);
  EXPECT_THROW(check_dequantize_packed({"gguf:iq2_s", {4, 256}, DType::BFloat16}, 4 * 82 + 1), Error);
}

}  // namespace
}  // namespace onnxq
