// The `out=` argument of the decoders (Tensor.numpy, dequantize, quants.dequantize): a caller's
// writable C-contiguous buffer that the library decodes straight into, so that a loader reusing
// its buffers pays no page faults for a fresh array.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <span>
#include <string_view>

#include "onnxq/core/dtype.hpp"
#include "onnxq/formats/format.hpp"

namespace onnxq::python {

namespace py = pybind11;

struct OutArg {
  py::object given;  // out as the caller passed it: what the call returns
  py::array array;   // a numpy view of its memory (out itself for an array); holding it keeps the memory alive
  DType dtype;       // the output dtype: out's own, checked against the dtype argument
  std::span<std::byte> bytes;  // out's memory, written with the GIL released
};

// Checks `out` (a numpy array or any buffer-protocol object): writable, C-contiguous, of the
// dtype `dtype` names (None: out's own decides), one that `format` decodes to, and of exactly
// `count` elements, the count that `counted` ("the tensor", "shape [2, 32]") has. ValueError
// naming what was expected and given; TypeError when out is no buffer at all.
OutArg out_arg(const py::handle& out, const py::handle& dtype, const BlockFormat& format, std::uint64_t count,
               std::string_view counted);

// ValueError when out's memory overlaps `input`'s (an array or buffer the call reads): decoding
// would overwrite the packed bytes while they are read.
void check_out_apart(const OutArg& out, const py::handle& input, std::string_view what);

}  // namespace onnxq::python
