// The CLI's documented exit codes (see man/onnxq.1), and the one place that maps the
// library's error kinds onto them.
#pragma once

#include <string>

#include "onnxq/core/error.hpp"

namespace onnxq::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitUsage = 1,         // bad command line
  kExitInvalidInput = 2,  // a file or value that breaks a rule
  kExitIo = 3,            // missing file, permission, read or write failure
  // A comparison that ran to its end and found differences: diff --exit-code (the files differ),
  // hash --check (a hash does not match, or no entry names the file), check (errors; with
  // --strict, warnings). Apart from 2 so that a script can tell "they differ" from "it failed".
  kExitDifferences = 4,
  kExitBrokenPipe = 141,  // the reader of stdout went away (128 + SIGPIPE, as shells report it)
};

// Thrown by a command whose comparison found differences; main prints `message` (when not empty)
// as an error line and exits with kExitDifferences.
struct DifferencesFound {
  std::string message;
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
