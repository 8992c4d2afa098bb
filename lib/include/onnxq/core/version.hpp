#pragma once

#include <string_view>

namespace onnxq {

inline constexpr std::string_view kVersion = "0.1.0";

}  // namespace onnxq
