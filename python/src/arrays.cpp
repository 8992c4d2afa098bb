#include "arrays.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace onnxq::python {
namespace {

using namespace pybind11::literals;

std::string onnx_name(DType dtype) { return std::string(dtype_info(dtype).onnx_name); }

// ml_dtypes.<name> as a numpy dtype, or None when ml_dtypes is not installed.
py::object ml_dtype(const char* name) {
  try {
    return py::dtype::from_args(py::module_::import("ml_dtypes").attr(name));
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_ImportError)) throw;
    return py::none();
  }
}

// Looked up once per process; never freed, so no Python object outlives the interpreter in a static.
const py::object& bfloat16_dtype() {
  static const py::object* dtype = [] {
    py::object d = ml_dtype("bfloat16");
    return new py::object(d.is_none() ? py::dtype("uint16") : d);
  }();
  return *dtype;
}

std::vector<py::ssize_t> dims_of(const Shape& shape) { return {shape.begin(), shape.end()}; }

}  // namespace

py::dtype numpy_dtype(DType dtype) {
  const DTypeInfo& info = dtype_info(dtype);
  if (dtype == DType::BFloat16) return py::reinterpret_borrow<py::dtype>(bfloat16_dtype());
  if (info.numpy_name.empty() || info.bits == 4 || dtype == DType::String)
    throw py::type_error("numpy has no dtype for ONNX " + onnx_name(dtype));
  const std::string name(info.numpy_name);
  if (name.rfind("float8", 0) == 0) {
    py::object d = ml_dtype(name.c_str());
    if (d.is_none()) throw py::type_error("ONNX " + onnx_name(dtype) + " needs the ml_dtypes package for numpy");
    return py::reinterpret_borrow<py::dtype>(d);
  }
  return py::dtype(name);
}

DType dtype_arg(const py::handle& spec, std::string_view what) {
  std::string name;
  if (py::isinstance<py::str>(spec)) {
    name = spec.cast<std::string>();
  } else {
    try {
      name = py::dtype::from_args(py::reinterpret_borrow<py::object>(spec)).attr("name").cast<std::string>();
    } catch (py::error_already_set&) {
      throw py::type_error(std::string(what) + " must be a dtype name such as 'float32' or a numpy dtype, got " +
                           py::repr(spec).cast<std::string>());
    }
  }
  const std::optional<DType> dtype = parse_dtype_name(name);
  if (!dtype) throw py::value_error(std::string(what) + ": unknown dtype '" + name + "'");
  return *dtype;
}

int threads_arg(const py::handle& threads) {
  if (threads.is_none()) return 0;
  if (!py::isinstance<py::int_>(threads))
    throw py::type_error("threads must be a positive int or None, got " + py::repr(threads).cast<std::string>());
  const long long n = threads.cast<long long>();
  if (n < 1 || n > 1 << 16)
    throw py::value_error("threads must be a positive int or None (the library's default), got " + std::to_string(n));
  return static_cast<int>(n);
}

bool numpy_can_hold(const Shape& shape, std::size_t element_bytes) {
  std::uint64_t bytes = std::max<std::size_t>(element_bytes, 1);
  for (const std::int64_t d : shape) {
    if (d < 0) return false;
    if (d == 0) continue;
    if (__builtin_mul_overflow(bytes, static_cast<std::uint64_t>(d), &bytes) || bytes > PTRDIFF_MAX) return false;
  }
  return true;
}

py::array empty_array(DType dtype, const Shape& shape) {
  const py::dtype d = numpy_dtype(dtype);
  if (!numpy_can_hold(shape, static_cast<std::size_t>(d.itemsize())))
    throw py::value_error("numpy cannot make an array of shape " + shape_to_string(shape) +
                          ": its dimensions multiply past the largest array size");
  return py::array(d, dims_of(shape));
}

py::array array_from_tensor(Tensor tensor) {
  const py::dtype dtype = numpy_dtype(tensor.dtype());
  if (tensor.bytes().empty()) return py::array(dtype, dims_of(tensor.shape()));
  auto* owned = new Tensor(std::move(tensor));
  py::capsule base(owned, [](void* p) { delete static_cast<Tensor*>(p); });
  return py::array(dtype, dims_of(owned->shape()), owned->bytes().data(), base);
}

Shape shape_of(const py::array& array) { return Shape(array.shape(), array.shape() + array.ndim()); }

TensorArg tensor_arg(const py::handle& value, std::string_view what) {
  // bytes are packed bytes (numpy would make them one string scalar); anything else as np.asarray
  py::array array = py::isinstance<py::bytes>(value) ? py::module_::import("numpy").attr("frombuffer")(value, "uint8")
                                                     : py::array::ensure(value);
  if (!array) throw py::type_error(std::string(what) + " must be an array, got " + py::repr(value).cast<std::string>());
  if (!(array.flags() & py::array::c_style)) array = py::module_::import("numpy").attr("array")(array, "order"_a = "C");
  if (!array.dtype().attr("isnative").cast<bool>())
    array = array.attr("astype")(array.dtype().attr("newbyteorder")("="));
  const std::string name = array.dtype().attr("name").cast<std::string>();
  const std::optional<DType> dtype = parse_dtype_name(name);
  // numpy (and ml_dtypes) keep one 4-bit value per byte; ONNX packs two.
  if (!dtype || *dtype == DType::String || dtype_info(*dtype).bits == 4)
    throw py::type_error(std::string(what) + " has dtype " + name + ", which has no ONNX counterpart here");
  const auto* data = static_cast<const std::byte*>(array.data());
  Tensor tensor = Tensor::view(*dtype, shape_of(array), {data, static_cast<std::size_t>(array.nbytes())}, nullptr);
  return {std::move(array), std::move(tensor)};
}

}  // namespace onnxq::python
