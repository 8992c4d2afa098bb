// .npy writer (NumPy format 1.0, or 2.0 when the header needs it), C order.
// BFLOAT16 has no numpy dtype: it is written as '<u2' bit patterns.
#pragma once

#include <string>

#include "onnxq/tensor.hpp"

namespace onnxq {

// The complete header (magic, version, length, dict, padding to a multiple of 64 bytes)
// for an array of `dtype` and `shape`; the data follows it directly.
// Throws Error(Unsupported) for dtypes without a .npy descr (strings, 4-bit, float8).
std::string npy_header(DType dtype, const Shape& shape);

// Header plus data of a whole tensor.
std::string npy_bytes(const Tensor& tensor);

}  // namespace onnxq
