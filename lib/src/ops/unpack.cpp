// Unpack-29: validate, then take a fast path when one covers the layout, else the reference.
#include "onnxq/ops/unpack.hpp"

#include "onnxq/core/error.hpp"
#include "ops/unpack_plan.hpp"

namespace onnxq {

Tensor unpack(const Tensor& x, const Tensor& count, const UnpackAttributes& attrs) {
  const ops_detail::UnpackPlan plan = ops_detail::plan_unpack(x, count, attrs);
  // Every output byte is written by whichever kernel runs: no zeroing pass.
  Tensor y = Tensor::uninitialized(DType::UInt8, plan.output_shape);
  if (plan.outer == 0) return y;
  auto* out = y.mutable_data<std::uint8_t>();
  // A fast path that meets an invalid group index stops; the reference then reports it.
  if (!ops_detail::unpack_fast_kernel(plan, x, out)) ops_detail::unpack_reference_kernel(plan, x, out);
  return y;
}

void unpack_into(const Tensor& x, const Tensor& count, const UnpackAttributes& attrs, Tensor& y) {
  const ops_detail::UnpackPlan plan = ops_detail::plan_unpack(x, count, attrs);
  if (y.dtype() != DType::UInt8 || y.shape() != plan.output_shape)
    invalid_argument("Unpack: the output tensor must be UINT8 of shape " + shape_to_string(plan.output_shape));
  if (plan.outer == 0) return;
  auto* out = y.mutable_data<std::uint8_t>();
  if (!ops_detail::unpack_fast_kernel(plan, x, out)) ops_detail::unpack_reference_kernel(plan, x, out);
}

Tensor unpack_reference(const Tensor& x, const Tensor& count, const UnpackAttributes& attrs) {
  const ops_detail::UnpackPlan plan = ops_detail::plan_unpack(x, count, attrs);
  Tensor y = Tensor::zeros(DType::UInt8, plan.output_shape);
  if (plan.outer != 0) ops_detail::unpack_reference_kernel(plan, x, y.mutable_data<std::uint8_t>());
  return y;
}

}  // namespace onnxq
