#include "io_settings.hpp"

namespace onnxq::cli {
namespace {

IoOptions& settings() {
  static IoOptions options;
  return options;
}

}  // namespace

void set_io_options(const IoOptions& options) { settings() = options; }

const IoOptions& io_options() { return settings(); }

}  // namespace onnxq::cli
