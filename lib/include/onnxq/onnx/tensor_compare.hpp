// Comparing an operator's output with an expected tensor, as conformance tests do.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "onnxq/core/tensor.hpp"

namespace onnxq {

// Floats match when |actual - expected| <= atol + rtol * |expected| (numpy's assert_allclose rule).
struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

// nullopt when `actual` matches `expected`; otherwise the first difference, e.g.
// "dtype expected FLOAT got DOUBLE", "shape expected [2, 3] got [3, 2]" or
// "element [1,3] expected 7 got 5". dtype and shape must match exactly; integers, bool
// and strings exactly. Floats (half, bfloat16 and float8 after widening) are bit-exact
// without a tolerance, except that any NaN matches any NaN; with one, finite values use
// the rule above and infinities must be equal.
std::optional<std::string> find_mismatch(const Tensor& expected, const Tensor& actual,
                                         const std::optional<Tolerance>& tolerance = std::nullopt);

// "[1,3]": a flat element index in row-major order, as indices into `shape`.
std::string element_index_to_string(const Shape& shape, std::uint64_t flat_index);

// One element as text: integers in decimal, bool as true/false, floats with enough digits
// to tell any two apart, complex as (re,im), strings quoted with escapes.
std::string element_to_string(const Tensor& tensor, std::uint64_t flat_index);

}  // namespace onnxq
