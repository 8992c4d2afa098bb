// DequantizePacked-29: packed GGML/GGUF blocks to FLOAT/FLOAT16/BFLOAT16/DOUBLE.
// Implemented in lib/src/dequant/ (see ../shared/spec/dequantize-packed.md).
#pragma once

#include <string_view>

#include "onnxq/tensor.hpp"

namespace onnxq {

struct DequantizePackedAttributes {
  std::string_view format;          // "gguf:q4_0" ... (case-sensitive, as the operator says)
  Shape shape;                      // ONNX order, rank >= 1
  DType output_dtype = DType::Float;  // Float, Float16, BFloat16 or Double
};

// x: a 1-D UINT8 tensor holding exactly the blocks. Throws Error(InvalidInput /
// InvalidArgument) naming the violated rule.
Tensor dequantize_packed(const Tensor& x, const DequantizePackedAttributes& attrs);

}  // namespace onnxq
