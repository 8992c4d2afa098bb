// The four operators, and the format table for onnxq.formats() and onnxq.quants. Inputs are
// read-only views of the caller's arrays; the GIL is released around each library call.
#include "ops.hpp"

#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/formats/format.hpp"
#include "onnxq/ops/dequantize_packed.hpp"
#include "onnxq/ops/onehot.hpp"
#include "onnxq/ops/unpack.hpp"
#include "onnxq/ops/unsqueeze.hpp"
#include "out_arg.hpp"

namespace onnxq::python {
namespace {

using namespace pybind11::literals;

Tensor int64_scalar(std::int64_t v) { return Tensor::from_bytes(DType::Int64, {}, std::as_bytes(std::span(&v, 1))); }

py::object dequantize(const py::object& x, const std::string& format, const std::vector<std::int64_t>& shape,
                      const py::object& dtype, const py::object& threads, const py::object& out) {
  const TensorArg in = tensor_arg(x, "x");
  DequantizePackedAttributes attrs;
  attrs.format = format;
  attrs.shape = Shape(shape.begin(), shape.end());
  attrs.output_dtype = dtype.is_none() ? DType::Float : dtype_arg(dtype, "dtype");
  const int n = threads_arg(threads);
  const BlockFormat& row = check_dequantize_packed(attrs, in.tensor.bytes().size());  // before numpy allocates
  if (!out.is_none()) {
    const OutArg dst =
        out_arg(out, dtype, row, shape_element_count(attrs.shape), "shape " + shape_to_string(attrs.shape));
    check_out_apart(dst, x, "x");
    check_out_apart(dst, in.array, "x");  // the contiguous copy of x, when tensor_arg made one
    attrs.output_dtype = dst.dtype;
    check_dequantize_packed(attrs, in.tensor.bytes().size());  // out's dtype, when it chose one
    {
      py::gil_scoped_release release;
      dequantize_packed_into(in.tensor, attrs, dst.bytes.data(), n);
    }
    return dst.given;  // with the GIL: copying it counts a reference
  }
  py::array result = empty_array(attrs.output_dtype, attrs.shape);
  void* data = result.mutable_data();
  {
    py::gil_scoped_release release;
    dequantize_packed_into(in.tensor, attrs, data, n);
  }
  return result;
}

py::array unpack(const py::object& x, const std::optional<std::int64_t>& count, const std::optional<std::int64_t>& bits,
                 const std::optional<std::int64_t>& radix, const std::optional<std::int64_t>& group_size,
                 std::int64_t axis) {
  const TensorArg in = tensor_arg(x, "x");
  UnpackAttributes attrs;
  attrs.axis = axis;
  attrs.bits = bits;
  attrs.radix = radix;
  attrs.group_size = group_size;
  Tensor y;
  {
    py::gil_scoped_release release;
    const std::int64_t n = count ? *count : unpack_largest_count(in.tensor, attrs);
    y = onnxq::unpack(in.tensor, int64_scalar(n), attrs);
  }
  return array_from_tensor(std::move(y));
}

py::array onehot(const py::object& indices, const py::object& depth, const py::object& values, std::int64_t axis,
                 int version) {
  if (version != 9 && version != 11) throw py::value_error("version must be 9 or 11, got " + std::to_string(version));
  const TensorArg i = tensor_arg(indices, "indices");
  const TensorArg d = tensor_arg(depth, "depth");
  const TensorArg v = tensor_arg(values, "values");
  Tensor y;
  {
    py::gil_scoped_release release;
    y = onnxq::onehot(i.tensor, d.tensor, v.tensor, axis, version == 11 ? OneHotVersion::V11 : OneHotVersion::V9);
  }
  return array_from_tensor(std::move(y));
}

// The result is a view of x with the new shape, as the operator's result shares x's storage.
py::array unsqueeze(const py::object& x, const std::vector<std::int64_t>& axes) {
  const TensorArg in = tensor_arg(x, "x");
  const Shape shape = onnxq::unsqueeze(in.tensor, axes, UnsqueezeVersion::V13).shape();
  return in.array.attr("reshape")(py::tuple(py::cast(shape)));
}

// One row of the format table per GGML type: the facts onnxq.formats() and onnxq.quants need.
py::list format_rows() {
  py::list rows;
  for (const BlockFormat& f : all_formats()) {
    py::object format_id = f.format_id.empty() ? py::object(py::none()) : py::object(py::str(std::string(f.format_id)));
    py::object plain = f.is_block_format() ? py::object(py::none())
                                           : py::object(py::str(std::string(dtype_info(f.plain_dtype).numpy_name)));
    rows.append(py::make_tuple(f.ggml_type, std::string(f.gguf_name), format_id, f.block_elements, f.block_bytes,
                               f.bits_per_weight(), plain));
  }
  return rows;
}

// quants.dequantize's decode: whole blocks of a GGML type, C-contiguous uint8 in, float32 out (a
// new array of `shape`), or out's dtype into out. `source` is the caller's data before it was
// made contiguous, which out must not overlap either.
py::object decode_ggml(const py::array& data, std::uint32_t ggml_type, const std::vector<std::int64_t>& shape,
                       const py::object& threads, const py::object& out, const py::object& source) {
  const BlockFormat* format = find_format_by_ggml_type(ggml_type);
  if (!format) throw py::value_error("no GGML type " + std::to_string(ggml_type));
  if (data.dtype().attr("name").cast<std::string>() != "uint8" || !(data.flags() & py::array::c_style))
    throw py::type_error("data must be a C-contiguous uint8 array");
  const int n = threads_arg(threads);
  const auto* src = static_cast<const std::byte*>(data.data());
  const std::span<const std::byte> bytes(src, static_cast<std::size_t>(data.nbytes()));
  const std::uint64_t blocks = bytes.size() / format->block_bytes;
  if (!out.is_none()) {
    const OutArg dst = out_arg(out, py::none(), *format, blocks * format->block_elements, "the data");
    check_out_apart(dst, data, "data");
    if (!source.is_none()) check_out_apart(dst, source, "data");
    {
      py::gil_scoped_release release;
      decode_blocks(*format, bytes, 0, blocks, dst.dtype, dst.bytes.data(), n);
    }
    return dst.given;  // with the GIL: copying it counts a reference
  }
  py::array result = empty_array(DType::Float, Shape(shape.begin(), shape.end()));
  if (static_cast<std::uint64_t>(result.size()) != blocks * format->block_elements)
    throw py::value_error("the output shape does not hold the blocks of the data");
  void* dst = result.mutable_data();
  {
    py::gil_scoped_release release;
    decode_blocks(*format, bytes, 0, blocks, DType::Float, dst, n);
  }
  return result;
}

}  // namespace

void bind_ops(py::module_& m) {
  m.def("dequantize", &dequantize, "x"_a, "format"_a, "shape"_a, "dtype"_a = py::none(), "threads"_a = py::none(),
        py::kw_only(), "out"_a = py::none(), R"doc(
DequantizePacked-29: packed GGML/GGUF blocks to a float array of the given shape.

x: a 1-D uint8 array holding exactly the blocks: product(shape[:-1]) * (shape[-1] / B) * S bytes
  for a format of B elements in S-byte blocks.
format: the format id, fixed and case-sensitive: "gguf:q4_0", "gguf:q4_k", "gguf:iq2_xxs" ...
  (see onnxq.formats()).
shape: the output shape (ONNX order, rank >= 1, shape[-1] a multiple of B).
dtype: "float32" (the default without out), "float16", "bfloat16" or "float64" (a name or a
  numpy dtype; bfloat16 as for Tensor.numpy()).
threads: OpenMP threads; None is the library's default.
out: a writable C-contiguous array or buffer of exactly product(shape) elements (any shape),
  apart from x's memory, to decode into instead of a new array; the call returns out itself.
  Without dtype its dtype is out's; with dtype, the two must agree.

The values are bit for bit ggml's; the GIL is released while decoding. Raises ValueError for a
bad attribute or a wrong out (dtype, size, layout, read-only, overlapping x) and
onnxq.InvalidInputError when x does not match the shape, with the operator's message.
)doc");
  m.def("unpack", &unpack, "x"_a, "count"_a = py::none(), py::kw_only(), "bits"_a = py::none(), "radix"_a = py::none(),
        "group_size"_a = py::none(), "axis"_a = -1, R"doc(
Unpack-29: LSB-first codes packed into uint8 or uint32 words, unpacked to one uint8 per code.

x: a uint8 or uint32 array, rank >= 1.
count: the number of codes along `axis` in the output; None is the largest count the axis holds.
bits: codes of 1 to 8 bits packed back to back (exclusive with radix/group_size), or
radix, group_size: groups of group_size base-`radix` digits per word (e.g. radix=3, group_size=5
  for ternary codes in bytes).
axis: the axis the codes run along (negative counts from the end).

Returns a new uint8 array; raises ValueError or onnxq.InvalidInputError naming the rule broken.
)doc");
  m.def("onehot", &onehot, "indices"_a, "depth"_a, "values"_a = py::make_tuple(0, 1), "axis"_a = -1, py::kw_only(),
        "version"_a = 9, R"doc(
OneHot-9: a one-hot encoding of `indices` along a new axis.

indices: a numeric array; depth: the size of the new axis (a scalar or a 1-element array);
values: [off_value, on_value], whose dtype is the output's; axis: where the new axis goes
(negative counts from the end). version=11 takes negative indices as counting from depth, as
OneHot-11 does; in version 9 (default) they, like indices past depth, give a row of off_value.

Returns a new array; raises ValueError or onnxq.InvalidInputError naming the rule broken.
)doc");
  m.def("unsqueeze", &unsqueeze, "x"_a, "axes"_a, R"doc(
Unsqueeze-23: x with a dimension of size 1 inserted at each of `axes` (positions in the output,
negative counting from its end; each at most once).

Returns a view of x (no copy when x is C-contiguous), as the operator's result shares x's data.
Raises ValueError for an axis out of range or named twice.
)doc");
  m.def("_format_rows", &format_rows,
        "The format table: (ggml_type, type, format_id, block_elements, block_bytes, bits_per_weight, "
        "plain_numpy_dtype) per GGML type.");
  m.def("_decode_ggml", &decode_ggml, "data"_a, "ggml_type"_a, "shape"_a, "threads"_a = py::none(),
        "out"_a = py::none(), "source"_a = py::none(),
        "quants.dequantize's decode: C-contiguous uint8 blocks to a new float32 array of `shape`, or into out.");
}

}  // namespace onnxq::python
