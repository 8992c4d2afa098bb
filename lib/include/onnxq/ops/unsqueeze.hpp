// Unsqueeze-23 (axes as an input, versions 13+) and the attribute forms of versions 1 and 11.
// A zero-copy reshape: the result shares the input's storage.
#pragma once

#include <cstdint>
#include <span>

#include "onnxq/core/tensor.hpp"

namespace onnxq {

enum class UnsqueezeVersion { V1, V11, V13 };

// axes: a 1-D INT64 tensor (version 13+ input form).
Tensor unsqueeze(const Tensor& data, const Tensor& axes);
// Attribute form. V1 allows only non-negative axes; V11 and later allow [-out_rank, out_rank-1].
Tensor unsqueeze(const Tensor& data, std::span<const std::int64_t> axes,
                 UnsqueezeVersion version = UnsqueezeVersion::V13);

}  // namespace onnxq
