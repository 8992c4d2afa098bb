// The library's error kinds as Python exceptions, with the library's (the CLI's) messages:
// InvalidInput and Unsupported -> onnxq.InvalidInputError (a ValueError), InvalidArgument ->
// ValueError, Io -> OSError, made by OSError(errno, message) when the library names an errno so
// that a missing file is a FileNotFoundError and a refused one a PermissionError.
#pragma once

#include <pybind11/pybind11.h>

namespace onnxq::python {

// Creates onnxq.InvalidInputError in `module` and installs the translation of onnxq::Error.
void bind_errors(pybind11::module_& module);

}  // namespace onnxq::python
