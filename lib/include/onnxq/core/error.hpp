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
  Error(ErrorKind kind, const std::string& message, int system_error = 0)
      : std::runtime_error(message), kind_(kind), system_error_(system_error) {}
  ErrorKind kind() const noexcept { return kind_; }
  // For Io errors where one applies: the errno of the failed call (ENOENT for a missing file or
  // shard, and for a remote file's 404; EACCES for a 401/403), so a front end can tell the cases
  // apart without reading the message. 0 otherwise.
  int system_error() const noexcept { return system_error_; }

 private:
  ErrorKind kind_;
  int system_error_;
};

[[noreturn]] inline void fail(ErrorKind kind, const std::string& message) { throw Error(kind, message); }
[[noreturn]] inline void invalid_input(const std::string& message) { fail(ErrorKind::InvalidInput, message); }
[[noreturn]] inline void invalid_argument(const std::string& message) { fail(ErrorKind::InvalidArgument, message); }
[[noreturn]] inline void io_error(int system_error, const std::string& message) {
  throw Error(ErrorKind::Io, message, system_error);
}

}  // namespace onnxq
