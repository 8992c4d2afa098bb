// OneHot-9 (and version 11's negative-index rule on request).
#pragma once

#include <cstdint>

#include "onnxq/core/tensor.hpp"

namespace onnxq {

enum class OneHotVersion { V9, V11 };

// indices: any numeric dtype; depth: scalar or 1-element numeric; values: 2 elements [off, on], any dtype.
Tensor onehot(const Tensor& indices, const Tensor& depth, const Tensor& values, std::int64_t axis = -1,
              OneHotVersion version = OneHotVersion::V9);

// As onehot(), into `output`: an owned tensor of the values' dtype and the output shape.
void onehot_into(const Tensor& indices, const Tensor& depth, const Tensor& values, std::int64_t axis,
                 OneHotVersion version, Tensor& output);

}  // namespace onnxq
