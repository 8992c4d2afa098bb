// For the tests that run every decoder path this CPU has: the paths to compare with the scalar
// reference, and a guard that gives the default choice back when a test ends.
#pragma once

#include <string>
#include <vector>

#include "onnxq/decode/isa.hpp"

namespace onnxq::testing {

// The paths supported_isas() lists after "scalar", the reference.
inline std::vector<std::string> simd_paths() {
  std::vector<std::string> paths = supported_isas();
  paths.erase(paths.begin());
  return paths;
}

struct IsaGuard {
  IsaGuard() = default;
  IsaGuard(const IsaGuard&) = delete;
  IsaGuard& operator=(const IsaGuard&) = delete;
  ~IsaGuard() { select_isa(""); }
};

}  // namespace onnxq::testing
