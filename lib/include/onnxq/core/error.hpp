// The library's one error type. The library never prints and never exits:
// it throws onnxq::Error and the caller (the CLI) decides what to do.
#pragma once

#include <stdexcept>
#include <string>

namespace onnxq {

enum class ErrorKind {
  InvalidInput,  // a file, tensor or value that breaks a rule (CLI exit code 2)
  InvalidArgument,  // an operator attribute or option value out of range (exit 2)
  Unsupported,   // valid input that onnxq does not handle (exit 2)
  Io,            // open/read/write/map failure (exit 3)
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
