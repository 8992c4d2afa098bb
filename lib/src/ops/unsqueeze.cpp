// Unsqueeze: a new shape over the same storage (Tensor::reshaped never copies, so the packed
// bytes of int4/uint4/float4e2m1 and the strings stay where they are).
#include "onnxq/ops/unsqueeze.hpp"

#include <string>
#include <vector>

#include "onnxq/core/error.hpp"

namespace onnxq {

Tensor unsqueeze(const Tensor& data, std::span<const std::int64_t> axes, UnsqueezeVersion version) {
  const auto out_rank = static_cast<std::int64_t>(data.rank() + axes.size());
  std::vector<bool> inserted(static_cast<std::size_t>(out_rank), false);
  for (const std::int64_t axis : axes) {
    const std::int64_t low = version == UnsqueezeVersion::V1 ? 0 : -out_rank;
    if (axis < low || axis >= out_rank)
      invalid_argument("Unsqueeze: axis " + std::to_string(axis) + " is out of range [" + std::to_string(low) + ", " +
                       std::to_string(out_rank - 1) + "] for output rank " + std::to_string(out_rank));
    const auto a = static_cast<std::size_t>(axis < 0 ? axis + out_rank : axis);
    if (inserted[a]) invalid_argument("Unsqueeze: axes name output dimension " + std::to_string(a) + " more than once");
    inserted[a] = true;
  }
  Shape shape;
  shape.reserve(inserted.size());
  std::size_t next = 0;
  for (const bool one : inserted) shape.push_back(one ? 1 : data.shape()[next++]);
  return data.reshaped(std::move(shape));
}

Tensor unsqueeze(const Tensor& data, const Tensor& axes) {
  if (axes.dtype() != DType::Int64)
    invalid_input("Unsqueeze: axes must be an INT64 tensor, got " + std::string(dtype_info(axes.dtype()).onnx_name));
  if (axes.rank() != 1)
    invalid_input("Unsqueeze: axes must be a 1-D tensor, got shape " + shape_to_string(axes.shape()));
  std::vector<std::int64_t> values(static_cast<std::size_t>(axes.element_count()));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = axes.at<std::int64_t>(i);
  return unsqueeze(data, values, UnsqueezeVersion::V13);
}

}  // namespace onnxq
