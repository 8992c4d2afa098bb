#include "errors.hpp"

#include <cstring>
#include <exception>

#include "onnxq/core/error.hpp"

namespace onnxq::python {
namespace {

namespace py = pybind11;

PyObject* invalid_input_error = nullptr;  // owned by the module for the life of the process

// Messages carry file names, which need not be UTF-8.
py::str message_of(const Error& e) {
  return py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(e.what(), std::strlen(e.what()), "backslashreplace"));
}

void raise_os_error(const Error& e) {
  if (e.system_error() == 0) {
    PyErr_SetObject(PyExc_OSError, message_of(e).ptr());
    return;
  }
  // OSError(errno, strerror) picks the subclass: FileNotFoundError, PermissionError ...
  py::object error = py::reinterpret_borrow<py::object>(PyExc_OSError)(e.system_error(), message_of(e));
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
}

void raise_python_error(const Error& e) {
  switch (e.kind()) {
    case ErrorKind::InvalidInput:
    case ErrorKind::Unsupported: PyErr_SetObject(invalid_input_error, message_of(e).ptr()); return;
    case ErrorKind::InvalidArgument: PyErr_SetObject(PyExc_ValueError, message_of(e).ptr()); return;
    case ErrorKind::Io: raise_os_error(e); return;
  }
  PyErr_SetObject(PyExc_RuntimeError, message_of(e).ptr());  // not reached: every kind is listed
}

}  // namespace

void bind_errors(py::module_& module) {
  invalid_input_error = PyErr_NewExceptionWithDoc(
      "onnxq.InvalidInputError",
      "A file, tensor or value that breaks a rule of its format or of an operator (a malformed GGUF\n"
      "file, a byte length that does not match a shape ...). A subclass of ValueError; the message\n"
      "names the file, the offset or field, and what was expected, as the onnxq command line says it.",
      PyExc_ValueError, nullptr);
  if (!invalid_input_error) throw py::error_already_set();
  module.attr("InvalidInputError") = py::handle(invalid_input_error);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      raise_python_error(e);
    }
  });
}

}  // namespace onnxq::python
