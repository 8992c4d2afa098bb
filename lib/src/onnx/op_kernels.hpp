// Binding of registry entries to operator kernels (defined in node_runner.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "onnxq/onnx/onnx_io.hpp"

namespace onnxq::detail {

// Inputs are in schema order and all present (run_node has checked arity and attributes).
using NodeKernel = Tensor (*)(const OnnxNode& node, std::span<const Tensor* const> inputs);

// nullptr when the kernel for that operator version is not built in.
NodeKernel find_node_kernel(std::string_view op_type, std::int64_t since_version);

}  // namespace onnxq::detail
