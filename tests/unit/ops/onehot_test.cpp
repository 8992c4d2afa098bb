// OneHot-9 (and the version-11 option): the conformance cases, every index and values dtype on
// every axis against a naive per-element expectation, the casts, and each invalid input.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

#include "onnxq/core/half.hpp"
#include "onnxq/ops/onehot.hpp"
#include "op_tensors.hpp"

namespace onnxq {
namespace {

using testing::same_tensor;
using testing::throws_error;
using testing::typed_tensor;

Tensor depth_of(std::int64_t d) { return testing::int64_scalar(d); }
Tensor f32_values(float off, float on) { return typed_tensor<float>(DType::Float, {2}, {off, on}); }
std::vector<float> f32s(const Tensor& t) {
  std::vector<float> v(t.element_count());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = t.at<float>(i);
  return v;
}

TEST(OneHot, ConformanceCases) {
  const auto cases = testing::case_names("test_onehot_");
  ASSERT_GE(cases.size(), 5u);
  for (const std::string& name : cases) {
    SCOPED_TRACE(name);
    const auto json = nlohmann::json::parse(testing::case_json(name));
    ASSERT_EQ(json["op_type"], "OneHot");
    const std::int64_t axis = json["attributes"].value("axis", std::int64_t{-1});
    const OneHotVersion version = json["opset"].get<int>() >= 11 ? OneHotVersion::V11 : OneHotVersion::V9;
    const Tensor y =
        onehot(testing::load_case_tensor(name, "input_0.npy"), testing::load_case_tensor(name, "input_1.npy"),
               testing::load_case_tensor(name, "input_2.npy"), axis, version);
    EXPECT_TRUE(same_tensor(testing::load_case_tensor(name, "output_0.npy"), y));
  }
}

// Index values as doubles, stored into a tensor of each numeric dtype (exact in all of them).
Tensor indices_as(DType d, Shape shape, const std::vector<double>& v) {
  Tensor t = Tensor::zeros(d, std::move(shape));
  auto* p = t.mutable_bytes().data();
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto put = [&](auto x) { std::memcpy(p + i * sizeof x, &x, sizeof x); };
    switch (d) {
      case DType::Int8: put(static_cast<std::int8_t>(v[i])); break;
      case DType::Int16: put(static_cast<std::int16_t>(v[i])); break;
      case DType::Int32: put(static_cast<std::int32_t>(v[i])); break;
      case DType::Int64: put(static_cast<std::int64_t>(v[i])); break;
      case DType::UInt8: put(static_cast<std::uint8_t>(v[i])); break;
      case DType::UInt16: put(static_cast<std::uint16_t>(v[i])); break;
      case DType::UInt32: put(static_cast<std::uint32_t>(v[i])); break;
      case DType::UInt64: put(static_cast<std::uint64_t>(v[i])); break;
      case DType::Float: put(static_cast<float>(v[i])); break;
      case DType::Double: put(v[i]); break;
      case DType::Float16: put(float_to_half(static_cast<float>(v[i]))); break;
      case DType::BFloat16: put(float_to_bf16(static_cast<float>(v[i]))); break;
      default: ADD_FAILURE() << "no such index dtype";
    }
  }
  return t;
}

// A two-element values tensor of dtype d with distinct off/on bit patterns.
Tensor values_of(DType d) {
  if (d == DType::String) return Tensor::from_strings({2}, {"off", "ON!"});
  Tensor t = Tensor::zeros(d, {2});
  auto b = t.mutable_bytes();
  const std::size_t size = b.size() / 2;
  for (std::size_t k = 0; k < size; ++k) {
    b[k] = static_cast<std::byte>(0x10 + k);             // off: non-zero, so the fill pass is exercised
    b[size + k] = static_cast<std::byte>(0x80 + 3 * k);  // on
  }
  if (d == DType::Bool) {
    b[0] = std::byte{0};
    b[1] = std::byte{1};
  }
  return t;
}

// The element of `values` (0 = off, 1 = on) that output element `flat` should hold.
void expect_onehot(const Tensor& indices, const std::vector<std::int64_t>& hot, std::int64_t depth, std::size_t axis,
                   const Tensor& values, const Tensor& out) {
  Shape shape = indices.shape();
  shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(axis), depth);
  ASSERT_EQ(out.shape(), shape);
  ASSERT_EQ(out.dtype(), values.dtype());
  const std::size_t rank = shape.size();
  std::vector<std::int64_t> idx(rank, 0);
  const std::size_t size = values.is_string() ? 0 : values.bytes().size() / 2;
  for (std::uint64_t flat = 0; flat < out.element_count(); ++flat) {
    // Multi-index of `flat`, then the indices element it came from (the axis coordinate removed).
    std::uint64_t rest = flat;
    for (std::size_t k = rank; k-- > 0;) {
      idx[k] = static_cast<std::int64_t>(rest % static_cast<std::uint64_t>(shape[k]));
      rest /= static_cast<std::uint64_t>(shape[k]);
    }
    std::uint64_t src = 0;
    for (std::size_t k = 0; k < rank; ++k)
      if (k != axis) src = src * static_cast<std::uint64_t>(shape[k]) + static_cast<std::uint64_t>(idx[k]);
    const int which = hot[src] == idx[axis] ? 1 : 0;
    if (values.is_string()) {
      ASSERT_EQ(out.strings()[flat], values.strings()[which]) << flat;
    } else {
      ASSERT_EQ(std::memcmp(out.bytes().data() + flat * size, values.bytes().data() + which * size, size), 0) << flat;
    }
  }
}

TEST(OneHot, EveryIndexDtypeValuesDtypeAndAxis) {
  const std::vector<DType> index_dtypes = {DType::Int8,  DType::Int16,  DType::Int32,   DType::Int64,
                                           DType::UInt8, DType::UInt16, DType::UInt32,  DType::UInt64,
                                           DType::Float, DType::Double, DType::Float16, DType::BFloat16};
  std::vector<DType> value_dtypes;
  for (const DTypeInfo& info : all_dtypes())
    if (info.bits != 4) value_dtypes.push_back(info.dtype);  // every dtype but the packed 4-bit ones
  const std::int64_t depth = 5;
  // Shape [2, 3]; includes out-of-range (5, 7) and, for signed types, negatives.
  for (DType id : index_dtypes) {
    const bool is_signed = dtype_info(id).is_signed;
    const std::vector<double> v =
        is_signed ? std::vector<double>{0, 4, -1, 2, 5, -5} : std::vector<double>{0, 4, 7, 2, 5, 1};
    for (OneHotVersion version : {OneHotVersion::V9, OneHotVersion::V11}) {
      std::vector<std::int64_t> hot;
      for (double x : v) {
        auto i = static_cast<std::int64_t>(x);
        if (version == OneHotVersion::V11 && i < 0 && i >= -depth) i += depth;
        hot.push_back(i >= 0 && i < depth ? i : -1);
      }
      const Tensor indices = indices_as(id, {2, 3}, v);
      for (DType vd : value_dtypes) {
        const Tensor values = values_of(vd);
        for (std::int64_t axis = -3; axis <= 2; ++axis) {
          SCOPED_TRACE(::testing::Message()
                       << "indices " << dtype_info(id).short_name << " values " << dtype_info(vd).short_name << " axis "
                       << axis << " v11 " << (version == OneHotVersion::V11));
          const Tensor out = onehot(indices, depth_of(depth), values, axis, version);
          expect_onehot(indices, hot, depth, static_cast<std::size_t>(axis < 0 ? axis + 3 : axis), values, out);
        }
      }
    }
  }
}

TEST(OneHot, ScalarAndEmptyIndices) {
  const Tensor y = onehot(typed_tensor<std::int64_t>(DType::Int64, {}, {2}), depth_of(4), f32_values(0, 1));
  EXPECT_EQ(y.shape(), (Shape{4}));
  EXPECT_EQ(f32s(y), (std::vector<float>{0, 0, 1, 0}));
  EXPECT_EQ(onehot(Tensor::zeros(DType::Int64, {3, 0}), depth_of(4), f32_values(0, 1), 1).shape(), (Shape{3, 4, 0}));
}

TEST(OneHot, FloatIndicesTruncateTowardZero) {
  const Tensor idx = typed_tensor<float>(DType::Float, {5}, {2.9f, -0.5f, -1.5f, 0.99f, 3.0f});
  // -0.5 truncates to 0 (a valid index); -1.5 to -1 (off in version 9).
  EXPECT_EQ(f32s(onehot(idx, depth_of(4), f32_values(0, 1))),
            (std::vector<float>{0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1}));
  // Version 11: -1.5 -> -1 -> the last position.
  EXPECT_EQ(f32s(onehot(idx, depth_of(4), f32_values(0, 1), -1, OneHotVersion::V11)),
            (std::vector<float>{0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1}));
}

TEST(OneHot, IndicesWithNoInt64ValueAreAllOff) {
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor idx = typed_tensor<float>(DType::Float, {4}, {std::nanf(""), inf, -inf, 1e30f});
  for (auto version : {OneHotVersion::V9, OneHotVersion::V11})
    EXPECT_EQ(f32s(onehot(idx, depth_of(2), f32_values(7, 9), -1, version)), std::vector<float>(8, 7));
  // UINT64 above 2^63-1 is out of range, not a negative number counted from the back.
  const Tensor big = typed_tensor<std::uint64_t>(DType::UInt64, {1}, {~std::uint64_t{0}});
  EXPECT_EQ(f32s(onehot(big, depth_of(3), f32_values(0, 1), -1, OneHotVersion::V11)), std::vector<float>(3, 0));
}

TEST(OneHot, Version11NegativeIndicesCountFromTheBack) {
  const Tensor idx = typed_tensor<std::int64_t>(DType::Int64, {4}, {-1, -5, -6, INT64_MIN});
  const std::vector<float> v11 = f32s(onehot(idx, depth_of(5), f32_values(0, 1), -1, OneHotVersion::V11));
  EXPECT_EQ(v11, (std::vector<float>{0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(f32s(onehot(idx, depth_of(5), f32_values(0, 1))), std::vector<float>(20, 0));
}

TEST(OneHot, DepthForms) {
  const Tensor idx = typed_tensor<std::int32_t>(DType::Int32, {2}, {0, 2});
  EXPECT_EQ(onehot(idx, typed_tensor<std::int64_t>(DType::Int64, {1}, {3}), f32_values(0, 1)).shape(), (Shape{2, 3}));
  EXPECT_EQ(onehot(idx, typed_tensor<float>(DType::Float, {}, {3.9f}), f32_values(0, 1)).shape(), (Shape{2, 3}));
  EXPECT_EQ(onehot(idx, typed_tensor<std::uint8_t>(DType::UInt8, {1}, {4}), f32_values(0, 1)).shape(), (Shape{2, 4}));
  EXPECT_EQ(onehot(idx, indices_as(DType::Float16, {}, {6}), f32_values(0, 1)).shape(), (Shape{2, 6}));
}

TEST(OneHot, IntoReusedBufferFillsEvenAZeroOff) {
  const Tensor idx = testing::typed_tensor<std::int64_t>(DType::Int64, {2}, {1, 7});
  for (const Tensor& values : {f32_values(0, 1), Tensor::from_strings({2}, {"", "x"})}) {
    Tensor out = onehot(idx, depth_of(3), values);
    Tensor reused = Tensor::zeros(values.dtype(), {2, 3});
    if (values.is_string()) {
      for (auto& s : reused.mutable_strings()) s = "stale";
    } else {
      for (auto& b : reused.mutable_bytes()) b = std::byte{0x7F};
    }
    onehot_into(idx, depth_of(3), values, -1, OneHotVersion::V9, reused);
    EXPECT_TRUE(same_tensor(out, reused));
  }
  Tensor wrong = Tensor::zeros(DType::Float, {3, 2});
  EXPECT_TRUE(throws_error(ErrorKind::InvalidArgument, "FLOAT of shape [2, 3]",
                           [&] { onehot_into(idx, depth_of(3), f32_values(0, 1), -1, OneHotVersion::V9, wrong); }));
}

TEST(OneHot, InvalidInputs) {
  using K = ErrorKind;
  const Tensor idx = typed_tensor<std::int64_t>(DType::Int64, {2}, {0, 1});
  const Tensor vals = f32_values(0, 1);
  for (std::int64_t d : {0, -3})
    EXPECT_TRUE(throws_error(K::InvalidInput, "depth must be positive", [&] { onehot(idx, depth_of(d), vals); }));
  EXPECT_TRUE(throws_error(K::InvalidInput, "depth must be positive",
                           [&] { onehot(idx, typed_tensor<float>(DType::Float, {}, {0.5f}), vals); }));
  EXPECT_TRUE(throws_error(K::InvalidInput, "no int64 value",
                           [&] { onehot(idx, typed_tensor<float>(DType::Float, {}, {std::nanf("")}), vals); }));
  EXPECT_TRUE(throws_error(K::InvalidInput, "one-element", [&] {
    onehot(idx, typed_tensor<std::int64_t>(DType::Int64, {2}, {3, 3}), vals);
  }));
  EXPECT_TRUE(throws_error(K::InvalidInput, "one-element", [&] {
    onehot(idx, typed_tensor<std::int64_t>(DType::Int64, {1, 1}, {3}), vals);
  }));
  EXPECT_TRUE(throws_error(K::InvalidInput, "depth must be a numeric",
                           [&] { onehot(idx, Tensor::from_strings({}, {"3"}), vals); }));
  EXPECT_TRUE(throws_error(K::InvalidInput, "depth must be a numeric",
                           [&] { onehot(idx, typed_tensor<std::uint8_t>(DType::Bool, {}, {1}), vals); }));
  EXPECT_TRUE(throws_error(K::InvalidInput, "two elements", [&] {
    onehot(idx, depth_of(3), typed_tensor<float>(DType::Float, {3}, {0, 1, 2}));
  }));
  EXPECT_TRUE(throws_error(K::InvalidInput, "two elements", [&] {
    onehot(idx, depth_of(3), typed_tensor<float>(DType::Float, {1, 2}, {0, 1}));
  }));
  EXPECT_TRUE(throws_error(K::InvalidInput, "two elements",
                           [&] { onehot(idx, depth_of(3), typed_tensor<float>(DType::Float, {}, {0})); }));
  EXPECT_TRUE(throws_error(K::Unsupported, "INT4", [&] { onehot(idx, depth_of(3), Tensor::zeros(DType::Int4, {2})); }));
  EXPECT_TRUE(throws_error(K::InvalidInput, "indices must be a numeric",
                           [&] { onehot(Tensor::from_strings({1}, {"1"}), depth_of(3), vals); }));
  EXPECT_TRUE(throws_error(K::InvalidInput, "indices must be a numeric",
                           [&] { onehot(Tensor::zeros(DType::Bool, {1}), depth_of(3), vals); }));
  EXPECT_TRUE(throws_error(K::InvalidInput, "indices must be a numeric",
                           [&] { onehot(Tensor::zeros(DType::Complex64, {1}), depth_of(3), vals); }));
  for (std::int64_t axis : {2, -3, 50})
    EXPECT_TRUE(
        throws_error(K::InvalidArgument, "out of range [-2, 1]", [&] { onehot(idx, depth_of(3), vals, axis); }));
  // An output whose element count overflows is refused before anything is allocated.
  EXPECT_TRUE(throws_error(K::InvalidInput, "overflows", [&] {
    onehot(Tensor::zeros(DType::Int64, {std::int64_t{1} << 20}), depth_of(INT64_MAX / 2), vals);
  }));
}

}  // namespace
}  // namespace onnxq
