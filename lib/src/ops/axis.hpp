// Axis normalisation and the [outer, axis, inner] view of a shape that the operators share.
#pragma once

#include <cstdint>
#include <string>

#include "onnxq/core/error.hpp"
#include "onnxq/core/tensor.hpp"

namespace onnxq::ops_detail {

// Maps axis in [-rank, rank-1] to [0, rank-1]; throws InvalidArgument naming `op` otherwise.
inline std::size_t normalize_axis(std::int64_t axis, std::size_t rank, const char* op) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r)
    invalid_argument(std::string(op) + ": axis " + std::to_string(axis) + " is out of range [" + std::to_string(-r) +
                     ", " + std::to_string(r - 1) + "]");
  return static_cast<std::size_t>(axis < 0 ? axis + r : axis);
}

// Element counts before and after dimension `axis`. Call only for a shape whose element count is
// non-zero (and so fits in 63 bits): with a zero dim elsewhere these products could overflow.
struct AxisSplit {
  std::uint64_t outer = 1;
  std::uint64_t inner = 1;
};

inline AxisSplit split_at_axis(const Shape& shape, std::size_t axis) {
  AxisSplit s;
  for (std::size_t i = 0; i < axis; ++i) s.outer *= static_cast<std::uint64_t>(shape[i]);
  for (std::size_t i = axis + 1; i < shape.size(); ++i) s.inner *= static_cast<std::uint64_t>(shape[i]);
  return s;
}

}  // namespace onnxq::ops_detail
