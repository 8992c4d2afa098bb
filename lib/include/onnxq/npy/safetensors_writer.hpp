// Writing the safetensors container (beside .npy writing): an 8-byte little-endian header length, a JSON header
// (dtype, shape, data_offsets per tensor, optional "__metadata__" of strings) padded
// with spaces to a multiple of 8 bytes, then the tensors' bytes back to back.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "onnxq/core/dtype.hpp"
#include "onnxq/core/tensor.hpp"

namespace onnxq {

struct SafetensorsEntry {
  std::string name;
  DType dtype;
  Shape shape;
  std::uint64_t begin;  // offsets in the data buffer (after the header)
  std::uint64_t end;
};

// "F32", "BF16", "I64" ...; throws Error(Unsupported) for dtypes safetensors lacks.
std::string_view safetensors_dtype(DType dtype);

// The length prefix and the padded header, entries in the given order (callers pass them
// sorted by offset). Invalid UTF-8 in names or metadata is replaced, never thrown on.
std::string safetensors_header(const std::vector<SafetensorsEntry>& entries,
                               const std::map<std::string, std::string>& metadata);

}  // namespace onnxq
