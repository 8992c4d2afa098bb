// Filling a buffer with one repeated element value (OneHot's `off`), optionally with non-temporal
// stores that bypass the caches: for outputs far larger than them, a plain fill first reads every
// line it writes (read-for-ownership), a streaming one does not.
#pragma once

#include <cstddef>
#include <cstdint>

namespace onnxq::ops_detail {

// Writes n elements of `size` bytes, each a copy of value[0..size). `streaming` asks for
// non-temporal stores (x86-64, `out` 64-byte aligned, size dividing 64; otherwise ordinary ones).
void fill_pattern(std::byte* out, std::uint64_t n, const std::byte* value, std::size_t size, bool streaming);

}  // namespace onnxq::ops_detail
