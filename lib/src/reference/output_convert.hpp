// Writing finished float32 values in the output dtype (spec §4): FLOAT as is, DOUBLE
// exactly, FLOAT16/BFLOAT16 rounded to nearest even. Applied once per run of blocks,
// straight into the caller's buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "onnxq/core/dtype.hpp"
#include "onnxq/core/half.hpp"

namespace onnxq::reference {

inline void store_floats(const float* x, std::size_t n, DType out, void* dst) {
  switch (out) {
    case DType::Float: std::memcpy(dst, x, n * sizeof(float)); return;
    case DType::Double: {
      auto* d = static_cast<double*>(dst);
      for (std::size_t i = 0; i < n; ++i) d[i] = static_cast<double>(x[i]);
      return;
    }
    case DType::Float16: {
      auto* h = static_cast<std::uint16_t*>(dst);
      for (std::size_t i = 0; i < n; ++i) h[i] = float_to_half(x[i]);
      return;
    }
    case DType::BFloat16: {
      auto* h = static_cast<std::uint16_t*>(dst);
      for (std::size_t i = 0; i < n; ++i) h[i] = float_to_bf16(x[i]);
      return;
    }
    default: return;  // callers validate the dtype first
  }
}

}  // namespace onnxq::reference
