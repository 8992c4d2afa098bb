// The kernels the operator registry's rows hold (op_registry.cpp), defined in op_kernels.cpp.
#pragma once

#include <span>

#include "onnxq/onnx/node_runner.hpp"

namespace onnxq::detail {

Tensor run_dequantize_packed_29(const OnnxNode& node, std::span<const Tensor* const> in);
Tensor run_onehot_9(const OnnxNode& node, std::span<const Tensor* const> in);
Tensor run_onehot_11(const OnnxNode& node, std::span<const Tensor* const> in);
Tensor run_unpack_29(const OnnxNode& node, std::span<const Tensor* const> in);
Tensor run_unsqueeze_1(const OnnxNode& node, std::span<const Tensor* const> in);
Tensor run_unsqueeze_11(const OnnxNode& node, std::span<const Tensor* const> in);
Tensor run_unsqueeze_13(const OnnxNode& node, std::span<const Tensor* const> in);
Tensor run_identity(const OnnxNode& node, std::span<const Tensor* const> in);
Tensor run_cast(const OnnxNode& node, std::span<const Tensor* const> in);

}  // namespace onnxq::detail
