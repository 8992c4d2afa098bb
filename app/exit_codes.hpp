// The CLI's documented exit codes (see man/onnxq.1).
#pragma once

namespace onnxq::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitUsage = 1,         // bad command line
  kExitInvalidInput = 2,  // a file or value that breaks a rule
  kExitIo = 3,            // missing file, permission, read or write failure
  kExitBrokenPipe = 141,  // the reader of stdout went away (128 + SIGPIPE, as shells report it)
};

}  // namespace onnxq::cli
