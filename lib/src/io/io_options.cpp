#include "onnxq/io/io_options.hpp"

#include <cstdlib>
#include <string>

#include "onnxq/core/error.hpp"

namespace onnxq {

IoOptions IoOptions::from_environment() {
  IoOptions options;
  const std::string variable(kTimeoutVariable);
  if (const char* text = std::getenv(variable.c_str()); text && *text) {
    char* end = nullptr;
    const double seconds = std::strtod(text, &end);
    if (*end != '\0' || !(seconds > 0))
      invalid_argument(variable + " must be a positive number of seconds, got '" + text + "'");
    options.remote.timeout_seconds = seconds;
  }
  return options;
}

}  // namespace onnxq
