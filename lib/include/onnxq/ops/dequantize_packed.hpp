// DequantizePacked-29: packed GGML/GGUF blocks to FLOAT/FLOAT16/BFLOAT16/DOUBLE.
// Implemented in lib/src/ops/dequantize_packed.cpp, decoding through onnxq/decode/decode_blocks.hpp.
#pragma once

#include <cstdint>
#include <string_view>

#include "onnxq/core/tensor.hpp"
#include "onnxq/formats/format.hpp"

namespace onnxq {

struct DequantizePackedAttributes {
  std::string_view format;            // "gguf:q4_0" ... (case-sensitive, as the operator says)
  Shape shape;                        // ONNX order, rank >= 1
  DType output_dtype = DType::Float;  // Float, Float16, BFloat16 or Double
};

// x: a 1-D UINT8 tensor holding exactly the blocks. Throws Error(InvalidInput /
// InvalidArgument) naming the violated rule.
Tensor dequantize_packed(const Tensor& x, const DequantizePackedAttributes& attrs);

// As dequantize_packed(), into `dst`: room for product(shape) elements of attrs.output_dtype (a
// caller's buffer, e.g. a numpy array), every one of which is written. `threads` as decode_blocks.
void dequantize_packed_into(const Tensor& x, const DequantizePackedAttributes& attrs, void* dst, int threads = 0);

// The operator's attribute and length checks alone, for callers that stream the decode
// themselves (decode_blocks): returns the format row, or throws exactly as dequantize_packed.
const BlockFormat& check_dequantize_packed(const DequantizePackedAttributes& attrs, std::uint64_t byte_length);

}  // namespace onnxq
