// OneHot-9 (and OneHot-11's negative indices on request): fill the output with `off`, then scatter `on`.
#include "onnxq/ops/onehot.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "onnxq/core/error.hpp"
#include "onnxq/decode/isa.hpp"
#include "ops/axis.hpp"
#include "ops/element_cast.hpp"
#include "ops/fill_pattern.hpp"

namespace onnxq {
namespace {

using ops_detail::element_as_int64;

std::string dtype_name(DType d) { return std::string(dtype_info(d).onnx_name); }

std::int64_t read_depth(const Tensor& depth) {
  if (!ops_detail::is_real_numeric(depth.dtype()))
    invalid_input("OneHot: depth must be a numeric tensor, got " + dtype_name(depth.dtype()));
  if (depth.rank() > 1 || depth.element_count() != 1)
    invalid_input("OneHot: depth must be a scalar or a one-element rank-1 tensor, got shape " +
                  shape_to_string(depth.shape()));
  const auto d = element_as_int64(depth, 0);
  if (!d) invalid_input("OneHot: depth has no int64 value (NaN or out of range)");
  if (*d <= 0) invalid_input("OneHot: depth must be positive, got " + std::to_string(*d));
  return *d;
}

void check_values(const Tensor& values) {
  if (values.dtype() == DType::Undefined || dtype_info(values.dtype()).bits == 4)
    fail(ErrorKind::Unsupported, "OneHot: values of type " + dtype_name(values.dtype()) + " are not supported");
  if (values.rank() != 1 || values.shape()[0] != 2)
    invalid_input("OneHot: values must be a rank-1 tensor of two elements [off, on], got shape " +
                  shape_to_string(values.shape()));
}

// Each index's position along the new axis, or -1 for an all-off row.
std::vector<std::int64_t> hot_positions(const Tensor& indices, std::int64_t depth, OneHotVersion version) {
  const std::size_t n = static_cast<std::size_t>(indices.element_count());
  std::vector<std::int64_t> pos(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto v = element_as_int64(indices, i);
    std::int64_t p = v ? *v : -1;
    // Version 11 counts negative indices from the back; version 9 leaves them all off.
    if (version == OneHotVersion::V11 && v && *v < 0 && *v >= -depth) p = *v + depth;
    pos[i] = (p >= 0 && p < depth) ? p : -1;
  }
  return pos;
}

void fill_elements(std::byte* out, std::uint64_t n, const std::byte* value, std::size_t size, bool zeroed) {
  // Fresh storage is zeroed on allocation: an all-zero `off` then needs no pass at all.
  if (zeroed && std::all_of(value, value + size, [](std::byte b) { return b == std::byte{0}; })) return;
  // Outputs far larger than the caches: non-temporal stores (the scatter then touches one line per index).
  ops_detail::fill_pattern(out, n, value, size, n * size >= streaming_store_threshold());
}

// The checked inputs of one call: the output shape and where the new axis splits it.
struct OneHotPlan {
  std::int64_t depth;
  Shape out_shape;
  std::uint64_t outer = 0, inner = 0;
};

OneHotPlan plan_onehot(const Tensor& indices, const Tensor& depth_tensor, const Tensor& values, std::int64_t axis) {
  if (!ops_detail::is_real_numeric(indices.dtype()))
    invalid_input("OneHot: indices must be a numeric tensor, got " + dtype_name(indices.dtype()));
  OneHotPlan plan;
  plan.depth = read_depth(depth_tensor);
  check_values(values);
  const std::size_t a = ops_detail::normalize_axis(axis, indices.rank() + 1, "OneHot");
  plan.out_shape = indices.shape();
  plan.out_shape.insert(plan.out_shape.begin() + static_cast<std::ptrdiff_t>(a), plan.depth);
  if (shape_element_count(plan.out_shape) != 0) {
    const Shape before(indices.shape().begin(), indices.shape().begin() + static_cast<std::ptrdiff_t>(a));
    plan.outer = shape_element_count(before);
    plan.inner = indices.element_count() / plan.outer;
  }
  return plan;
}

// Fill with off, then scatter on. `zeroed`: the storage is known to be all zero bytes already.
void write_onehot(const OneHotPlan& plan, const Tensor& indices, const Tensor& values, OneHotVersion version,
                  bool zeroed, Tensor& out) {
  if (plan.outer == 0) return;
  const std::uint64_t total = out.element_count();
  const std::vector<std::int64_t> pos = hot_positions(indices, plan.depth, version);
  const auto d = static_cast<std::uint64_t>(plan.depth);
  const std::uint64_t outer = plan.outer, inner = plan.inner;
  if (values.is_string()) {
    std::vector<std::string>& s = out.mutable_strings();
    std::fill(s.begin(), s.end(), values.strings()[0]);
    for (std::uint64_t o = 0; o < outer; ++o)
      for (std::uint64_t i = 0; i < inner; ++i)
        if (const std::int64_t p = pos[o * inner + i]; p >= 0)
          s[(o * d + static_cast<std::uint64_t>(p)) * inner + i] = values.strings()[1];
    return;
  }
  const std::size_t size = dtype_info(values.dtype()).bits / 8;
  const std::byte* off = values.bytes().data();
  const std::byte* on = off + size;
  std::byte* dst = out.mutable_bytes().data();
  fill_elements(dst, total, off, size, zeroed);
  for (std::uint64_t o = 0; o < outer; ++o)
    for (std::uint64_t i = 0; i < inner; ++i)
      if (const std::int64_t p = pos[o * inner + i]; p >= 0)
        std::memcpy(dst + ((o * d + static_cast<std::uint64_t>(p)) * inner + i) * size, on, size);
}

}  // namespace

Tensor onehot(const Tensor& indices, const Tensor& depth, const Tensor& values, std::int64_t axis,
              OneHotVersion version) {
  const OneHotPlan plan = plan_onehot(indices, depth, values, axis);
  // An all-zero `off` is what zeroed storage already holds; any other is one fill pass, not two.
  const bool zero_off =
      !values.is_string() &&
      std::all_of(values.bytes().begin(),
                  values.bytes().begin() + static_cast<std::ptrdiff_t>(dtype_info(values.dtype()).bits / 8),
                  [](std::byte b) { return b == std::byte{0}; });
  Tensor out = zero_off || values.is_string() ? Tensor::zeros(values.dtype(), plan.out_shape)
                                              : Tensor::uninitialized(values.dtype(), plan.out_shape);
  write_onehot(plan, indices, values, version, /*zeroed=*/zero_off, out);
  return out;
}

void onehot_into(const Tensor& indices, const Tensor& depth, const Tensor& values, std::int64_t axis,
                 OneHotVersion version, Tensor& output) {
  const OneHotPlan plan = plan_onehot(indices, depth, values, axis);
  if (output.dtype() != values.dtype() || output.shape() != plan.out_shape)
    invalid_argument("OneHot: the output tensor must be " + dtype_name(values.dtype()) + " of shape " +
                     shape_to_string(plan.out_shape));
  if (output.is_string()) output.mutable_strings().resize(static_cast<std::size_t>(output.element_count()));
  write_onehot(plan, indices, values, version, /*zeroed=*/false, output);
}

}  // namespace onnxq
