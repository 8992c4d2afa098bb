// How this run reads files (--timeout, $ONNXQ_TIMEOUT), set once by main after parsing the
// command line and passed by every command to the library's openers.
#pragma once

#include "onnxq/io/io_options.hpp"

namespace onnxq::cli {

void set_io_options(const IoOptions& options);
const IoOptions& io_options();

}  // namespace onnxq::cli
