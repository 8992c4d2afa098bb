#include <gtest/gtest.h>

#include <cstdint>

#include "onnxq/core/error.hpp"
#include "onnxq/core/tensor.hpp"

namespace onnxq {
namespace {

TEST(ShapeElementCount, MultipliesTheDimensions) {
  EXPECT_EQ(shape_element_count({}), 1u);
  EXPECT_EQ(shape_element_count({3, 512}), 1536u);
}

// Found by fuzzing: a GGUF tensor with ne = [32, 0, huge, huge] has 0 elements in GGUF order, so
// the reader accepts it; its ONNX shape (the reverse) must count 0 too, not overflow.
TEST(ShapeElementCount, AZeroDimensionMakesZeroInEitherOrder) {
  const std::int64_t huge = 3701788892272459776;
  EXPECT_EQ(shape_element_count({118056645897828, huge, 0, 32}), 0u);
  EXPECT_EQ(shape_element_count({32, 0, huge, 118056645897828}), 0u);
}

TEST(ShapeElementCount, RejectsOverflowAndNegativeDimensions) {
  EXPECT_THROW(shape_element_count({std::int64_t{1} << 32, std::int64_t{1} << 32}), Error);
  EXPECT_THROW(shape_element_count({0, -1}), Error);
}

}  // namespace
}  // namespace onnxq
