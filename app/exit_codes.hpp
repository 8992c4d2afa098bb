// The CLI's documented exit codes (see man/onnxq.1), and the one place that maps the
// library's error kinds onto them.
#pragma once

#include "onnxq/core/error.hpp"

namespace onnxq::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitUsage = 1,         // bad command line
  kExitInvalidInput = 2,  // a file or value that breaks a rule
  kExitIo = 3,            // missing file, permission, read or write failure
  kExitBrokenPipe = 141,  // the reader of stdout went away (128 + SIGPIPE, as shells report it)
};

// The exit code for an onnxq::Error of this kind.
constexpr ExitCode exit_code_for(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::InvalidInput:
    case ErrorKind::InvalidArgument:
    case ErrorKind::Unsupported: return kExitInvalidInput;
    case ErrorKind::Io: return kExitIo;
  }
  return kExitInvalidInput;  // not reached: every kind is listed above
}

}  // namespace onnxq::cli
