// Unpack through a named kernel set: lets tests and benchmarks run every path this CPU has.
#include <string>

#include "decode/dispatch.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/ops/unpack.hpp"
#include "ops/unpack_plan.hpp"

namespace onnxq {

std::vector<std::string> unpack_kernel_paths() {
  std::vector<std::string> names;
  for (const simd::UnpackKernels* k : decode::all_unpack_kernels()) names.emplace_back(k->name);
  return names;
}

void unpack_into_path(const Tensor& x, const Tensor& count, const UnpackAttributes& attrs, Tensor& y,
                      std::string_view path) {
  const simd::UnpackKernels* kernels = nullptr;
  for (const simd::UnpackKernels* k : decode::all_unpack_kernels())
    if (path == k->name) kernels = k;
  if (!kernels) fail(ErrorKind::Unsupported, "Unpack: no kernel path '" + std::string(path) + "' on this CPU");
  const ops_detail::UnpackPlan plan = ops_detail::plan_unpack(x, count, attrs);
  if (y.dtype() != DType::UInt8 || y.shape() != plan.output_shape)
    invalid_argument("Unpack: the output tensor must be UINT8 of shape " + shape_to_string(plan.output_shape));
  if (plan.outer == 0) return;
  auto* out = y.mutable_data<std::uint8_t>();
  if (!ops_detail::unpack_fast_kernel(plan, x, out, *kernels)) ops_detail::unpack_reference_kernel(plan, x, out);
}

}  // namespace onnxq
