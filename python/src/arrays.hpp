// numpy arrays on both sides of the library: dtypes through the library's dtype table, arrays
// that numpy allocates for the decoders to write into, and read-only Tensor views of caller arrays.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string_view>

#include "onnxq/core/dtype.hpp"
#include "onnxq/core/tensor.hpp"

namespace onnxq::python {

namespace py = pybind11;

// The numpy dtype of an ONNX dtype. BFLOAT16 is ml_dtypes.bfloat16 when that package imports,
// else uint16 (the bit patterns); the FLOAT8 types need ml_dtypes. TypeError when numpy has none.
py::dtype numpy_dtype(DType dtype);

// A dtype argument: a name the dtype table knows ("float32", "f16", "bfloat16", "FLOAT" ...), a
// numpy dtype or a scalar type (np.float16, ml_dtypes.bfloat16). ValueError for an unknown name,
// TypeError for anything else. `what` names the argument in the message.
DType dtype_arg(const py::handle& spec, std::string_view what);

// A threads argument: None is 0 (the library's default); else a positive int.
int threads_arg(const py::handle& threads);

// Whether numpy can make an array of this shape: it refuses one whose nonzero dimensions multiply,
// with the element size, past the largest index (even when a zero dimension leaves it empty).
bool numpy_can_hold(const Shape& shape, std::size_t element_bytes);

// A new array that numpy allocates and nobody has written: the decoders fill every element.
// ValueError for a shape numpy cannot hold.
py::array empty_array(DType dtype, const Shape& shape);

// An array over the storage of an owned Tensor (an operator's result), which its base keeps alive.
py::array array_from_tensor(Tensor tensor);

// A caller's array (anything np.asarray takes; bytes as uint8) as a read-only Tensor view: `array` is the C-contiguous,
// native-byte-order array the view points into (the caller's own when it already was one), kept by this struct.
struct TensorArg {
  py::array array;
  Tensor tensor;
};
TensorArg tensor_arg(const py::handle& value, std::string_view what);

// The array's shape as the library's Shape.
Shape shape_of(const py::array& array);

}  // namespace onnxq::python
