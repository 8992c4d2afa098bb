// The limits of a GGUF file, each stated once. The reader enforces the first group (GgufModel::open
// rejects a file past one, and `onnxq check` reports it as an error); only ggml's reader or the GGUF
// specification sets the second, which `onnxq check` reports on top of the reader's findings.
#pragma once

#include <cstddef>
#include <cstdint>

#include "onnxq/gguf/wire.hpp"

namespace onnxq {

// The reader's limits.
inline constexpr int kGgufMaxArrayDepth = 8;      // arrays of arrays, nested at most this deep
inline constexpr std::uint32_t kGgufMaxDims = 4;  // a tensor's n_dims is 1..4 (ggml's GGML_MAX_DIMS)
inline constexpr std::uint64_t kGgufMaxAlignment = std::uint64_t{1} << 20;  // ggml: general.alignment <= 1 MiB
inline constexpr std::size_t kGgufMaxTensorNameBytes = 63;                  // ggml: GGML_MAX_NAME = 64 with its NUL
// ggml: a tensor's element count stays below INT64_MAX; its byte size must fit an int64 too.
inline constexpr std::uint64_t kGgufMaxTensorElements = INT64_MAX - 1;
inline constexpr std::uint64_t kGgufMaxTensorBytes = INT64_MAX;

// Limits of ggml's reader and of the GGUF specification that onnxq's reader does not apply.
inline constexpr std::uint64_t kGgufSpecMaxKeyBytes = 65535;         // the specification: keys of at most 65535 bytes
inline constexpr std::uint64_t kGgmlMaxStringBytes = 64ull << 20;    // ggml: GGUF_MAX_STRING_LENGTH
inline constexpr std::uint64_t kGgmlMaxArrayElements = 64ull << 20;  // ggml: GGUF_MAX_ARRAY_ELEMENTS

}  // namespace onnxq
