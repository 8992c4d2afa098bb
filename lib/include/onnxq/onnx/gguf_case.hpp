// Node-test cases for DequantizePacked from a real model's tensor: the packed bytes of its
// first rows as the input, onnxq's decode of them as the expected output.
#pragma once

#include <cstdint>
#include <optional>

#include "onnxq/gguf/model.hpp"
#include "onnxq/onnx/onnx_io.hpp"

namespace onnxq {

struct GgufNodeCase {
  OnnxModel model;  // one DequantizePacked node: graph input "x", output "y"
  Tensor input;     // UINT8 [bytes]
  Tensor output;    // `dtype`, the node's shape
};

// The case for `tensor` (a block format; a plain type is InvalidArgument): its first `rows` rows
// (rows of ne0 elements: the shape becomes [rows, ne0]) or, without `rows`, the whole tensor in
// its ONNX shape. Throws InvalidInput for a big-endian file (its bytes are not the operator's).
GgufNodeCase gguf_node_case(const GgufModel& model, const TensorInfo& tensor, std::optional<std::uint64_t> rows,
                            DType dtype = DType::Float);

}  // namespace onnxq
