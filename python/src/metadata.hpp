// GGUF metadata values as Python values, read through the library's GgufValue/GgufArray.
#pragma once

#include <pybind11/pybind11.h>

#include "onnxq/gguf/model.hpp"

namespace onnxq::python {

// Integers -> int, float32/float64 -> float (exact), bool -> bool, strings -> str (bytes that are
// not UTF-8 kept as surrogate escapes, as os.fsdecode does), numeric and bool arrays -> 1-D numpy
// arrays of the element type, arrays of strings or of arrays -> lists.
pybind11::object metadata_value(const GgufValue& value);

// All metadata of the model, in file order.
pybind11::dict metadata_dict(const GgufModel& file);

}  // namespace onnxq::python
