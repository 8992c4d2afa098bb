// Unsqueeze-23 and the attribute forms of versions 1 and 11: shapes, zero-copy for every dtype, errors.
#include <gtest/gtest.h>

#include <random>

#include "onnxq/ops/unsqueeze.hpp"
#include "op_tensors.hpp"

namespace onnxq {
namespace {

using testing::same_tensor;
using testing::throws_error;

Tensor axes_tensor(const std::vector<std::int64_t>& axes) {
  return testing::typed_tensor<std::int64_t>(DType::Int64, {static_cast<std::int64_t>(axes.size())}, axes);
}

TEST(Unsqueeze, ConformanceCases) {
  const auto cases = testing::case_names("test_unsqueeze_");
  ASSERT_GE(cases.size(), 8u);
  for (const std::string& name : cases) {
    SCOPED_TRACE(name);
    const Tensor y =
        unsqueeze(testing::load_case_tensor(name, "input_0.npy"), testing::load_case_tensor(name, "input_1.npy"));
    EXPECT_TRUE(same_tensor(testing::load_case_tensor(name, "output_0.npy"), y));
  }
}

TEST(Unsqueeze, DocExample) {
  // [3, 4, 5] with axes [0, 4] -> [1, 3, 4, 5, 1].
  EXPECT_EQ(unsqueeze(Tensor::zeros(DType::Float, {3, 4, 5}), axes_tensor({0, 4})).shape(), (Shape{1, 3, 4, 5, 1}));
}

TEST(Unsqueeze, AxesInAnyOrderAndSign) {
  const Tensor x = Tensor::zeros(DType::Int32, {3, 4});
  EXPECT_EQ(unsqueeze(x, axes_tensor({-1})).shape(), (Shape{3, 4, 1}));
  EXPECT_EQ(unsqueeze(x, axes_tensor({-3})).shape(), (Shape{1, 3, 4}));
  EXPECT_EQ(unsqueeze(x, axes_tensor({3, 0})).shape(), (Shape{1, 3, 4, 1}));
  EXPECT_EQ(unsqueeze(x, axes_tensor({-1, 0, 2})).shape(), (Shape{1, 3, 1, 4, 1}));
  EXPECT_EQ(unsqueeze(x, axes_tensor({-7, -6, -5, -4, -3})).shape(), (Shape{1, 1, 1, 1, 1, 3, 4}));
  EXPECT_EQ(unsqueeze(x, axes_tensor({-5, -4, -3, -2, -1})).shape(), (Shape{3, 4, 1, 1, 1, 1, 1}));
  EXPECT_EQ(unsqueeze(x, axes_tensor({})).shape(), (Shape{3, 4}));
  EXPECT_EQ(unsqueeze(Tensor::zeros(DType::Float, {}), axes_tensor({0})).shape(), (Shape{1}));
  EXPECT_EQ(unsqueeze(Tensor::zeros(DType::Float, {0, 2}), axes_tensor({1})).shape(), (Shape{0, 1, 2}));
}

TEST(Unsqueeze, EveryDtypeSharesItsStorage) {
  std::mt19937 rng(3);
  for (const DTypeInfo& info : all_dtypes()) {
    SCOPED_TRACE(std::string(info.onnx_name));
    const Shape shape{3, 5};  // 15 elements: an odd count, so 4-bit types end in half a byte
    Tensor x;
    if (info.dtype == DType::String) {
      x = Tensor::from_strings(shape, {"a", "", "ü", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o"});
    } else {
      x = Tensor::zeros(info.dtype, shape);
      for (auto& b : x.mutable_bytes()) b = static_cast<std::byte>(rng());
      if (info.bits == 4) {
        EXPECT_EQ(x.bytes().size(), 8u);
      }
    }
    const Tensor y = unsqueeze(x, std::vector<std::int64_t>{1, -1}, UnsqueezeVersion::V11);
    EXPECT_EQ(y.shape(), (Shape{3, 1, 5, 1}));
    EXPECT_EQ(y.dtype(), info.dtype);
    if (info.dtype == DType::String) {
      EXPECT_EQ(&y.strings(), &x.strings());
    } else {
      EXPECT_EQ(y.bytes().data(), x.bytes().data());
      EXPECT_EQ(y.bytes().size(), x.bytes().size());
    }
  }
}

TEST(Unsqueeze, ViewsStayViews) {
  const std::vector<std::uint8_t> backing{1, 2, 3, 4};
  auto keep = std::make_shared<std::vector<std::uint8_t>>(backing);
  const Tensor v = Tensor::view(DType::UInt8, {4}, std::as_bytes(std::span(*keep)), keep);
  EXPECT_EQ(unsqueeze(v, axes_tensor({0})).bytes().data(), v.bytes().data());
}

TEST(Unsqueeze, AttributeForms) {
  const Tensor x = Tensor::zeros(DType::Float, {2, 3});
  const std::vector<std::int64_t> non_negative{0, 3};
  EXPECT_EQ(unsqueeze(x, non_negative, UnsqueezeVersion::V1).shape(), (Shape{1, 2, 3, 1}));
  const std::vector<std::int64_t> negative{-1};
  EXPECT_EQ(unsqueeze(x, negative, UnsqueezeVersion::V11).shape(), (Shape{2, 3, 1}));
  EXPECT_TRUE(throws_error(ErrorKind::InvalidArgument, "out of range [0, 2]",
                           [&] { unsqueeze(x, negative, UnsqueezeVersion::V1); }));
}

TEST(Unsqueeze, InvalidInputs) {
  const Tensor x = Tensor::zeros(DType::Float, {2, 3});
  EXPECT_TRUE(throws_error(ErrorKind::InvalidArgument, "more than once", [&] { unsqueeze(x, axes_tensor({1, 1})); }));
  // Duplicates after normalisation: -4 and 0 are the same dimension of a rank-4 output.
  EXPECT_TRUE(throws_error(ErrorKind::InvalidArgument, "dimension 0 more than once", [&] {
    unsqueeze(x, axes_tensor({0, -4}));
  }));
  EXPECT_TRUE(throws_error(ErrorKind::InvalidArgument, "axis 3 is out of range [-3, 2]",
                           [&] { unsqueeze(x, axes_tensor({3})); }));
  EXPECT_TRUE(
      throws_error(ErrorKind::InvalidArgument, "axis -4 is out of range", [&] { unsqueeze(x, axes_tensor({-4})); }));
  EXPECT_TRUE(throws_error(ErrorKind::InvalidInput, "INT64",
                           [&] { unsqueeze(x, testing::typed_tensor<std::int32_t>(DType::Int32, {1}, {0})); }));
  EXPECT_TRUE(throws_error(ErrorKind::InvalidInput, "1-D", [&] {
    unsqueeze(x, testing::typed_tensor<std::int64_t>(DType::Int64, {1, 1}, {0}));
  }));
  EXPECT_TRUE(throws_error(ErrorKind::InvalidInput, "1-D", [&] { unsqueeze(x, testing::int64_scalar(0)); }));
}

}  // namespace
}  // namespace onnxq
