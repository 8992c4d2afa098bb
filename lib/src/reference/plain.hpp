// Element-wise conversion of the plain GGUF types to an output dtype.
#pragma once

#include <cstddef>
#include <cstdint>

#include "onnxq/core/dtype.hpp"

namespace onnxq::reference {

// n elements of `source` at src (unaligned) to `out` at dst. `out` is a float dtype
// or `source` itself (validated by the caller).
void convert_plain(DType source, const std::uint8_t* src, std::size_t n, DType out, void* dst);

}  // namespace onnxq::reference
