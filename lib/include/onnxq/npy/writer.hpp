// .npy writer (NumPy format 1.0, or 2.0 when the header needs it), C order, for any Tensor, strings
// included ('<U<n>', UTF-32LE, n = the longest string in code points). BFLOAT16 has no numpy dtype:
// it is written as '<u2' bit patterns. dtypes with no exact .npy descr (float8, 4-bit packed) are Unsupported.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "onnxq/core/tensor.hpp"

namespace onnxq {

// The complete header (magic, version, length, dict, padding to a multiple of 64 bytes)
// for a numeric array of `dtype` and `shape`; the data follows it directly.
// Throws Error(Unsupported) for dtypes without a .npy descr (strings, 4-bit, float8).
std::string npy_header(DType dtype, const Shape& shape);

// Header plus data of a whole numeric tensor.
std::string npy_bytes(const Tensor& tensor);

// The preamble and header for `t` (any dtype npy_header takes, or STRING), padded so the data starts at a multiple of
// 64 bytes.
std::string npy_tensor_header(const Tensor& t);

// Calls `write` with the header and then the data, in pieces (strings are encoded a chunk at a time).
void write_npy_tensor(const Tensor& t, const std::function<void(const void* data, std::size_t size)>& write);

// The whole file in memory (for tests and small outputs).
std::vector<std::byte> encode_npy_tensor(const Tensor& t);

}  // namespace onnxq
