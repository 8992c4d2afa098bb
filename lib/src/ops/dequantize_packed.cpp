// DequantizePacked-29: the operator's checks, then one decode_blocks call.
#include "onnxq/ops/dequantize_packed.hpp"

#include <string>

#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/decode/decode_blocks.hpp"

namespace onnxq {
namespace {

const std::string kOp = "DequantizePacked: ";

// Format ids are case-sensitive and only the fixed gguf:* ids are accepted.
const BlockFormat* find_format_id(std::string_view id) {
  for (const BlockFormat& f : block_formats())
    if (f.format_id == id) return &f;
  return nullptr;
}

void check_input(const Tensor& x) {
  if (x.dtype() != DType::UInt8)
    invalid_input(kOp + "input x must be UINT8, got " + std::string(dtype_info(x.dtype()).onnx_name));
  if (x.rank() != 1) invalid_input(kOp + "input x must be 1-D, got shape " + shape_to_string(x.shape()));
}

}  // namespace

const BlockFormat& check_dequantize_packed(const DequantizePackedAttributes& attrs, std::uint64_t byte_length) {
  const BlockFormat* format = find_format_id(attrs.format);
  if (!format)
    invalid_argument(kOp + "unknown format '" + std::string(attrs.format) +
                     "'; expected a fixed, case-sensitive id such as gguf:q4_0 (see `onnxq formats`)");
  const DType out = attrs.output_dtype;
  if (out != DType::Float && out != DType::Float16 && out != DType::BFloat16 && out != DType::Double)
    invalid_argument(kOp + "output_dtype " + std::to_string(static_cast<int>(out)) + " (" +
                     std::string(dtype_info(out).onnx_name) +
                     ") is not FLOAT (1), FLOAT16 (10), BFLOAT16 (16) or DOUBLE (11)");
  const Shape& shape = attrs.shape;
  if (shape.empty()) invalid_argument(kOp + "shape must have rank at least 1, got []");
  for (std::int64_t d : shape)
    if (d < 0) invalid_argument(kOp + "shape " + shape_to_string(shape) + " has a negative dimension");
  const std::uint64_t last = static_cast<std::uint64_t>(shape.back());
  const std::uint64_t qk = format->block_elements;
  if (last % qk != 0)
    invalid_argument(kOp + "last dimension " + std::to_string(last) + " of shape " + shape_to_string(shape) +
                     " is not a multiple of " + std::to_string(qk) + ", the elements per block of " +
                     std::string(attrs.format));
  // len(x) must be product(shape[:-1]) * (shape[-1] / B) * S; every step is overflow-checked.
  std::optional<std::uint64_t> expected = last / qk;
  for (std::size_t i = 0; expected && i + 1 < shape.size(); ++i)
    expected = checked_mul(*expected, static_cast<std::uint64_t>(shape[i]));
  if (expected) expected = checked_mul(*expected, format->block_bytes);
  if (!expected)
    invalid_argument(kOp + "the byte length for shape " + shape_to_string(shape) + " of " + std::string(attrs.format) +
                     " overflows 64 bits");
  if (byte_length != *expected)
    invalid_input(kOp + "input x has " + std::to_string(byte_length) + " bytes, but shape " + shape_to_string(shape) +
                  " of " + std::string(attrs.format) + " needs product(shape[:-1]) * (shape[-1] / " +
                  std::to_string(qk) + ") * " + std::to_string(format->block_bytes) + " = " +
                  std::to_string(*expected));
  // The output must be addressable too (a zero dimension can hide a huge one).
  std::optional<std::uint64_t> out_bytes = 1;
  for (std::int64_t d : shape)
    if (out_bytes) out_bytes = checked_mul(*out_bytes, static_cast<std::uint64_t>(d));
  if (out_bytes) out_bytes = checked_mul(*out_bytes, dtype_info(out).bits / 8);
  if (!out_bytes || *out_bytes > static_cast<std::uint64_t>(INT64_MAX))
    invalid_argument(kOp + "the output size of shape " + shape_to_string(shape) + " overflows 64 bits");
  return *format;
}

void dequantize_packed_into(const Tensor& x, const DequantizePackedAttributes& attrs, void* dst, int threads) {
  check_input(x);
  const BlockFormat& format = check_dequantize_packed(attrs, x.bytes().size());
  const std::uint64_t blocks = x.bytes().size() / format.block_bytes;
  decode_blocks(format, x.bytes(), 0, blocks, attrs.output_dtype, dst, threads);
}

Tensor dequantize_packed(const Tensor& x, const DequantizePackedAttributes& attrs) {
  check_input(x);  // all checks before the output is allocated
  check_dequantize_packed(attrs, x.bytes().size());
  Tensor y = Tensor::zeros(attrs.output_dtype, attrs.shape);
  dequantize_packed_into(x, attrs, y.mutable_bytes().data());
  return y;
}

}  // namespace onnxq
