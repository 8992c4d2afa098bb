// The library's one error type. The library never prints and never exits:
// it throws onnxq::Error and the caller decides what to do with each kind.
#pragma once

#include <stdexcept>
#include <string>

namespace onnxq {

enum class ErrorKind {
  InvalidInput,     // a file, tensor or value that breaks a rule
  InvalidArgument,  // an operator attribute or option value out of range
  Unsupported,      // valid input that onnxq does not handle
  Io,               // open/read/write/map failure
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

[[noreturn]] inline void fail(ErrorKind kind, const std::string& message) { throw Error(kind, message); }
[[noreturn]] inline void invalid_input(const std::string& message) { fail(ErrorKind::InvalidInput, message); }
[[noreturn]] inline void invalid_argument(const std::string& message) { fail(ErrorKind::InvalidArgument, message); }

}  // namespace onnxq
