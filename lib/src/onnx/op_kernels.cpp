// The kernels of the operator registry's rows: each reads its node's attributes (whose names
// and types run_node has checked against the row) and calls onnxq's operator.
#include "onnx/op_kernels.hpp"

#include "onnxq/core/error.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/ops/dequantize_packed.hpp"
#include "onnxq/ops/onehot.hpp"
#include "onnxq/ops/unpack.hpp"
#include "onnxq/ops/unsqueeze.hpp"

namespace onnxq::detail {
namespace {

// Attribute types were checked against the schema before a kernel runs.
std::optional<std::int64_t> int_attr(const OnnxNode& node, std::string_view name) {
  const NodeAttribute* a = node.find_attribute(name);
  return a ? std::optional(a->i) : std::nullopt;
}

Tensor run_onehot(const OnnxNode& node, std::span<const Tensor* const> in, OneHotVersion version) {
  return onehot(*in[0], *in[1], *in[2], int_attr(node, "axis").value_or(-1), version);
}

Tensor run_unsqueeze_attr(const OnnxNode& node, std::span<const Tensor* const> in, UnsqueezeVersion version) {
  return unsqueeze(*in[0], node.find_attribute("axes")->ints, version);
}

}  // namespace

Tensor run_dequantize_packed_29(const OnnxNode& node, std::span<const Tensor* const> in) {
  const NodeAttribute* format = node.find_attribute("format");
  const NodeAttribute* shape = node.find_attribute("shape");
  DequantizePackedAttributes attrs;
  attrs.format = format->s;
  attrs.shape = shape->ints;
  if (auto code = int_attr(node, "output_dtype")) {
    const DTypeInfo* info = find_dtype(static_cast<std::int32_t>(*code));
    if (!info || *code != static_cast<std::int32_t>(*code))
      invalid_argument("DequantizePacked: output_dtype " + std::to_string(*code) + " is not an ONNX data type");
    attrs.output_dtype = info->dtype;
  }
  return dequantize_packed(*in[0], attrs);
}

Tensor run_onehot_9(const OnnxNode& node, std::span<const Tensor* const> in) {
  return run_onehot(node, in, OneHotVersion::V9);
}
Tensor run_onehot_11(const OnnxNode& node, std::span<const Tensor* const> in) {
  return run_onehot(node, in, OneHotVersion::V11);
}

Tensor run_unpack_29(const OnnxNode& node, std::span<const Tensor* const> in) {
  UnpackAttributes attrs;
  attrs.axis = int_attr(node, "axis").value_or(-1);
  attrs.bits = int_attr(node, "bits");
  attrs.radix = int_attr(node, "radix");
  attrs.group_size = int_attr(node, "group_size");
  return unpack(*in[0], *in[1], attrs);
}

Tensor run_unsqueeze_1(const OnnxNode& node, std::span<const Tensor* const> in) {
  return run_unsqueeze_attr(node, in, UnsqueezeVersion::V1);
}
Tensor run_unsqueeze_11(const OnnxNode& node, std::span<const Tensor* const> in) {
  return run_unsqueeze_attr(node, in, UnsqueezeVersion::V11);
}
Tensor run_unsqueeze_13(const OnnxNode&, std::span<const Tensor* const> in) { return unsqueeze(*in[0], *in[1]); }

// Identity: the input itself (a view shares its bytes; nothing is copied).
Tensor run_identity(const OnnxNode&, std::span<const Tensor* const> in) { return *in[0]; }

// Cast between the float types, through the plain formats' decoders: the same conversion (and
// rounding) as `onnxq dequant` of a plain tensor, so an exported graph's Cast matches it bit for bit.
Tensor run_cast(const OnnxNode& node, std::span<const Tensor* const> in) {
  const Tensor& x = *in[0];
  const NodeAttribute* to = node.find_attribute("to");
  const DTypeInfo* target = find_dtype(static_cast<std::int32_t>(to->i));
  if (!target || to->i != static_cast<std::int32_t>(to->i))
    invalid_argument("Cast: to " + std::to_string(to->i) + " is not an ONNX data type");
  if (target->dtype == x.dtype()) return x;
  auto is_float = [](DType d) {
    return d == DType::Float || d == DType::Float16 || d == DType::BFloat16 || d == DType::Double;
  };
  if (!is_float(x.dtype()) || !is_float(target->dtype))
    fail(ErrorKind::Unsupported, "Cast from " + std::string(dtype_info(x.dtype()).onnx_name) + " to " +
                                     std::string(target->onnx_name) +
                                     " is not supported (onnxq casts between FLOAT, "
                                     "FLOAT16, BFLOAT16 and DOUBLE)");
  const BlockFormat* plain = nullptr;
  for (const BlockFormat& f : all_formats())
    if (!f.is_block_format() && f.plain_dtype == x.dtype()) plain = &f;
  if (!plain) fail(ErrorKind::Unsupported, "Cast from " + std::string(dtype_info(x.dtype()).onnx_name));
  Tensor y = Tensor::uninitialized(target->dtype, x.shape());
  decode_blocks(*plain, x.bytes(), 0, x.element_count(), target->dtype, y.mutable_bytes().data());
  return y;
}

}  // namespace onnxq::detail
