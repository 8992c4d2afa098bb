#include <gtest/gtest.h>

#include "onnxq/core/error.hpp"
#include "onnxq/npy/writer.hpp"

namespace onnxq {
namespace {

std::string dict_of(const std::string& header) {
  const std::size_t start = header[6] == 1 ? 10 : 12;
  return header.substr(start);
}

TEST(NpyWriter, Version1HeaderIsPaddedTo64Bytes) {
  const std::string h = npy_header(DType::Float, {2, 3});
  EXPECT_EQ(h.substr(0, 6), "\x93NUMPY");
  EXPECT_EQ(h[6], 1);
  EXPECT_EQ(h[7], 0);
  EXPECT_EQ(h.size() % 64, 0u);
  EXPECT_EQ(static_cast<std::size_t>(static_cast<unsigned char>(h[8]) | static_cast<unsigned char>(h[9]) << 8),
            h.size() - 10);
  EXPECT_EQ(h.back(), '\n');
  EXPECT_EQ(dict_of(h).find("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"), 0u);
}

TEST(NpyWriter, ShapesAndDescrsFollowNumpy) {
  EXPECT_NE(npy_header(DType::Float16, {5}).find("'descr': '<f2'"), std::string::npos);
  EXPECT_NE(npy_header(DType::Float16, {5}).find("'shape': (5,)"), std::string::npos);
  EXPECT_NE(npy_header(DType::Double, {}).find("'shape': ()"), std::string::npos);
  EXPECT_NE(npy_header(DType::Int8, {0, 4}).find("'descr': '|i1'"), std::string::npos);
  EXPECT_NE(npy_header(DType::Int64, {1}).find("'descr': '<i8'"), std::string::npos);
  // bfloat16 has no numpy dtype: its bit patterns travel as uint16.
  EXPECT_NE(npy_header(DType::BFloat16, {7}).find("'descr': '<u2'"), std::string::npos);
  EXPECT_THROW(npy_header(DType::String, {1}), Error);
  EXPECT_THROW(npy_header(DType::Float, {-1}), Error);
}

TEST(NpyWriter, LongHeadersUseVersion2) {
  // 7000 dims of "1000000000, " need ~84 KB of header, more than version 1.0's 65535.
  Shape many(7000, 1000000000);
  many.front() = 0;  // keeps the element count representable
  const std::string h = npy_header(DType::Float, many);
  EXPECT_EQ(h[6], 2);
  EXPECT_EQ(h.size() % 64, 0u);
  const std::size_t len = static_cast<unsigned char>(h[8]) | static_cast<unsigned char>(h[9]) << 8 |
                          static_cast<std::size_t>(static_cast<unsigned char>(h[10])) << 16;
  EXPECT_EQ(len, h.size() - 12);
}

TEST(NpyWriter, TensorBytesFollowTheHeader) {
  Tensor t = Tensor::zeros(DType::Int16, {3});
  t.mutable_data<std::int16_t>()[1] = -2;
  const std::string b = npy_bytes(t);
  const std::string h = npy_header(DType::Int16, {3});
  ASSERT_EQ(b.size(), h.size() + 6);
  EXPECT_EQ(b.substr(0, h.size()), h);
  EXPECT_EQ(static_cast<unsigned char>(b[h.size() + 2]), 0xFE);
  EXPECT_EQ(static_cast<unsigned char>(b[h.size() + 3]), 0xFF);
}

}  // namespace
}  // namespace onnxq
