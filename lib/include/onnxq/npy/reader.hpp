// Reading NumPy .npy files (format versions 1.0, 2.0, 3.0) into Tensors. The header is untrusted:
// its length is bounded, the dict literal is parsed strictly and the data length is checked against
// the shape with overflow-checked arithmetic. Unsupported layouts (Fortran order, object arrays,
// structured dtypes, byte strings, datetimes) are clear errors, never guesses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "onnxq/core/tensor.hpp"

namespace onnxq {

// The longest header accepted (numpy itself refuses more than 10000 bytes by default).
inline constexpr std::size_t kNpyMaxHeaderBytes = 65536;

struct NpyArrayInfo {
  int major_version = 0;  // 1, 2 or 3
  DType dtype = DType::Undefined;
  Shape shape;
  std::size_t data_offset = 0;    // where the array data starts in the file
  std::size_t item_bytes = 0;     // bytes per element in the file ('<U8' is 32)
  bool byteswap = false;          // the file's multi-byte items are big-endian
  std::size_t unicode_chars = 0;  // for '<U<n>': n (the tensor is STRING)
};

// Whether `bytes` start with the .npy magic (\x93NUMPY): an array file, not raw values.
bool has_npy_magic(std::span<const std::byte> bytes);

// Parses and checks the preamble and header; `source` names the input in error messages.
NpyArrayInfo parse_npy_header(std::span<const std::byte> file, std::string_view source = "npy");

// The whole array as an owned Tensor (byteswapped and decoded as needed).
Tensor read_npy(std::span<const std::byte> file, std::string_view source = "npy");
// As above, but a zero-copy view of `file` when no conversion is needed; `keep_alive` owns `file`.
Tensor read_npy(std::span<const std::byte> file, std::shared_ptr<const void> keep_alive,
                std::string_view source = "npy");

// Maps the file (zero-copy where possible). Errors name the path.
Tensor read_npy_file(const std::string& path);
// Reads the descriptor to its end (stdin in a pipeline), then decodes it.
Tensor read_npy_stream(int fd, std::string_view source = "standard input");

}  // namespace onnxq
