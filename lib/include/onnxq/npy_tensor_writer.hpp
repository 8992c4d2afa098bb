// Writing any Tensor as .npy, strings included ('<U<n>', UTF-32LE, n = the longest string in code points).
// Numeric headers come from npy_header() (npy_writer.hpp); this adds strings and streaming.
// dtypes with no exact .npy descr (float8, 4-bit packed) are Unsupported.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "onnxq/tensor.hpp"

namespace onnxq {

// The preamble and header for `t` (any dtype npy_header takes, or STRING), padded so the data starts at a multiple of 64 bytes.
std::string npy_tensor_header(const Tensor& t);

// Calls `write` with the header and then the data, in pieces (strings are encoded a chunk at a time).
void write_npy_tensor(const Tensor& t, const std::function<void(const void* data, std::size_t size)>& write);

// The whole file in memory (for tests and small outputs).
std::vector<std::byte> encode_npy_tensor(const Tensor& t);

}  // namespace onnxq
