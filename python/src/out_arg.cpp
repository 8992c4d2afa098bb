#include "out_arg.hpp"

#include <algorithm>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "onnxq/decode/decode_blocks.hpp"

namespace onnxq::python {
namespace {

std::string repr_of(const py::handle& h) { return py::repr(h).cast<std::string>(); }
std::string str_of(const py::handle& h) { return py::str(h).cast<std::string>(); }

// out as a numpy array over its own memory: numpy's view of a buffer holds the buffer's export,
// so a bytearray cannot be resized under the decode while the GIL is released.
py::array array_over(const py::handle& out) {
  if (py::isinstance<py::array>(out)) return py::reinterpret_borrow<py::array>(out);
  if (!PyObject_CheckBuffer(out.ptr()))
    throw py::type_error("out must be a writable C-contiguous array or buffer, got " +
                         std::string(Py_TYPE(out.ptr())->tp_name));
  return py::module_::import("numpy").attr("asarray")(out);
}

// The DType whose numpy dtype is exactly out's (byte order included), if any. BFLOAT16 first:
// without ml_dtypes its numpy dtype is uint16, which no decode writes as itself.
std::optional<DType> dtype_of(const py::dtype& d) {
  if (d.equal(numpy_dtype(DType::BFloat16))) return DType::BFloat16;
  const std::optional<DType> parsed = parse_dtype_name(d.attr("name").cast<std::string>());
  if (!parsed || *parsed == DType::BFloat16) return std::nullopt;
  try {
    if (d.equal(numpy_dtype(*parsed))) return parsed;
  } catch (const std::exception&) {  // one numpy_dtype refuses (the 4-bit types): none of ours
  }
  return std::nullopt;
}

// The numpy dtypes `format` decodes to, for a message: "float32, float16, bfloat16 or float64".
std::string decodable_dtypes(const BlockFormat& format) {
  std::vector<std::string> names;
  for (const DType d : {DType::Float, DType::Float16, DType::BFloat16, DType::Double, format.plain_dtype})
    if (d != DType::Undefined && can_decode_to(format, d)) {
      std::string name = str_of(numpy_dtype(d));
      if (d == DType::BFloat16 && name == "uint16") name += " (bfloat16 bits)";  // no ml_dtypes
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return text;
}

// The bytes from the lowest to the highest element of an array or buffer, strides either way;
// none for an empty one or an object with no buffer. Bounds only, as numpy's may_share_memory, and
// without it: numpy lets go of the GIL there, which would hide a decode that holds it (test_gil).
struct Span {
  const std::byte* begin;
  const std::byte* end;
};

std::optional<Span> span_from(const void* data, int ndim, const Py_ssize_t* shape, const Py_ssize_t* strides,
                              Py_ssize_t itemsize) {
  std::ptrdiff_t low = 0, high = 0;
  for (int i = 0; i < ndim; ++i) {
    if (shape[i] == 0) return std::nullopt;
    const std::ptrdiff_t reach = (shape[i] - 1) * (strides ? strides[i] : 0);
    (reach < 0 ? low : high) += reach;
  }
  const auto* base = static_cast<const std::byte*>(data);
  return Span{base + low, base + high + itemsize};
}

std::optional<Span> span_of(const py::handle& input) {
  if (py::isinstance<py::array>(input)) {
    const auto a = py::reinterpret_borrow<py::array>(input);
    return span_from(a.data(), static_cast<int>(a.ndim()), a.shape(), a.strides(), a.itemsize());
  }
  if (!PyObject_CheckBuffer(input.ptr())) return std::nullopt;
  Py_buffer view;
  if (PyObject_GetBuffer(input.ptr(), &view, PyBUF_FULL_RO) != 0) {
    PyErr_Clear();  // not readable as a whole: then it was not read as x either
    return std::nullopt;
  }
  std::optional<Span> span =
      view.strides ? span_from(view.buf, view.ndim, view.shape, view.strides, view.itemsize)
                   : Span{static_cast<const std::byte*>(view.buf), static_cast<const std::byte*>(view.buf) + view.len};
  if (view.len == 0) span.reset();
  PyBuffer_Release(&view);
  return span;
}

}  // namespace

OutArg out_arg(const py::handle& out, const py::handle& dtype, const BlockFormat& format, std::uint64_t count,
               std::string_view counted) {
  py::array array = array_over(out);
  if (!array.writeable())
    throw py::value_error("out must be writable, got a read-only " + str_of(array.dtype()) + " array");
  if (!(array.flags() & py::array::c_style))
    throw py::value_error("out must be C-contiguous, got an array with strides " + repr_of(array.attr("strides")));
  const py::dtype given = array.dtype();
  std::optional<DType> out_dtype = dtype_of(given);
  if (!dtype.is_none()) {
    const DType wanted = dtype_arg(dtype, "dtype");
    const py::dtype expected = numpy_dtype(wanted);
    if (!given.equal(expected))
      throw py::value_error("out has dtype " + str_of(given) + ", expected " + str_of(expected) +
                            " (dtype=" + repr_of(dtype) + ")");
    out_dtype = wanted;
  }
  if (!out_dtype || !can_decode_to(format, *out_dtype))
    throw py::value_error("out has dtype " + str_of(given) + ", expected " + decodable_dtypes(format) +
                          " (native byte order) for " + std::string(format.gguf_name));
  const auto size = static_cast<std::uint64_t>(array.size());
  if (size != count)
    throw py::value_error("out has " + std::to_string(size) + " elements, " + std::string(counted) + " has " +
                          std::to_string(count));
  const std::span<std::byte> bytes(static_cast<std::byte*>(array.mutable_data()),
                                   static_cast<std::size_t>(array.nbytes()));
  return {py::reinterpret_borrow<py::object>(out), std::move(array), *out_dtype, bytes};
}

void check_out_apart(const OutArg& out, const py::handle& input, std::string_view what) {
  const std::optional<Span> in = span_of(input);
  const auto* begin = out.bytes.data();
  const auto* end = begin + out.bytes.size();
  if (in && !out.bytes.empty() && in->begin < end && begin < in->end)
    throw py::value_error("out overlaps the memory of " + std::string(what) +
                          ", the packed input; it must be a separate buffer");
}

}  // namespace onnxq::python
