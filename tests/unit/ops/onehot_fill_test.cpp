// OneHot's streaming fill (non-temporal stores for outputs past streaming_store_threshold()) and its
// single-pass allocation: forced on with a zero threshold, every element size and axis must give
// the elements computed here, into fresh and into reused (stale) buffers.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "onnxq/decode/isa.hpp"
#include "onnxq/ops/onehot.hpp"
#include "op_tensors.hpp"

namespace onnxq {
namespace {

struct ThresholdGuard {
  std::size_t saved = streaming_store_threshold();
  ~ThresholdGuard() { set_streaming_store_threshold(saved); }
};

using testing::int64_scalar;

// [off, on] of `dtype` with distinct, non-zero random bytes.
Tensor random_pair(DType dtype, std::mt19937_64& rng) {
  const std::size_t size = dtype_info(dtype).bits / 8;
  std::vector<std::byte> b(2 * size);
  for (auto& x : b) x = static_cast<std::byte>(1 + rng() % 255);
  b[size] = static_cast<std::byte>(std::to_integer<int>(b[0]) ^ 0x80);  // on != off
  return Tensor::from_bytes(dtype, {2}, b);
}

// The expected output element at each position, from the definition.
void expect_onehot(const Tensor& out, const std::vector<std::int64_t>& idx, std::int64_t depth, std::int64_t outer,
                   std::int64_t inner, const Tensor& values) {
  const std::size_t size = dtype_info(values.dtype()).bits / 8;
  const std::byte* off = values.bytes().data();
  const std::byte* on = off + size;
  const std::byte* got = out.bytes().data();
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t d = 0; d < depth; ++d)
      for (std::int64_t i = 0; i < inner; ++i) {
        const std::int64_t k = idx[static_cast<std::size_t>(o * inner + i)];
        const std::byte* want = k == d ? on : off;
        const auto at = static_cast<std::size_t>((o * depth + d) * inner + i) * size;
        ASSERT_EQ(std::memcmp(got + at, want, size), 0) << "o=" << o << " d=" << d << " i=" << i;
      }
}

TEST(OneHotFill, StreamingFillEveryElementSizeAndAxis) {
  ThresholdGuard guard;
  std::mt19937_64 rng(9);
  for (std::size_t threshold : {std::size_t{0}, SIZE_MAX})
    for (DType dtype : {DType::UInt8, DType::Int16, DType::Float, DType::Double, DType::Complex128})
      for (std::int64_t axis : {-1, 0, 1})
        for (std::int64_t depth : {1, 7, 64, 333}) {
          set_streaming_store_threshold(threshold);
          SCOPED_TRACE(std::string(dtype_info(dtype).onnx_name) + " axis=" + std::to_string(axis) +
                       " depth=" + std::to_string(depth) + " threshold=" + std::to_string(threshold));
          const std::int64_t a = 3, b = 5 + static_cast<std::int64_t>(rng() % 7);
          std::vector<std::int64_t> idx(static_cast<std::size_t>(a * b));
          for (auto& v : idx) v = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(depth + 2)) - 1;
          const Tensor indices = Tensor::from_bytes(DType::Int64, {a, b}, std::as_bytes(std::span(idx)));
          const Tensor values = random_pair(dtype, rng);
          // Positions of the new axis: outer = dims before it, inner = dims after it.
          const std::int64_t outer = axis == 0 ? 1 : axis == 1 ? a : a * b;
          const std::int64_t inner = a * b / outer;
          std::vector<std::int64_t> hot(idx);
          for (auto& v : hot) v = v >= 0 && v < depth ? v : -1;
          const Tensor fresh = onehot(indices, int64_scalar(depth), values, axis);
          expect_onehot(fresh, hot, depth, outer, inner, values);
          Tensor reused = Tensor::zeros(dtype, fresh.shape());
          for (auto& x : reused.mutable_bytes()) x = static_cast<std::byte>(rng());
          onehot_into(indices, int64_scalar(depth), values, axis, OneHotVersion::V9, reused);
          expect_onehot(reused, hot, depth, outer, inner, values);
        }
}

}  // namespace
}  // namespace onnxq
