// Messages on stderr ("onnxq: warning: ..."), shown by the level -q/-v set (setup_logging).
// spdlog is compiled in log.cpp alone: its header-only code (vtables, pattern formatter) would
// cost every file that logs about 10 s of compile time. Here only fmt's argument capture is
// inline; the formatting happens in log.cpp, and only for a message the level lets through.
#pragma once

#include <fmt/core.h>

#include <utility>

namespace onnxq::cli::log {

enum class Level { debug, info, warn };

// -q: errors only; else -vv: debug, -v: info, default: warnings.
void setup_logging(int verbosity, bool quiet);

void vlog(Level level, fmt::string_view format, fmt::format_args args);

template <class... Args>
void debug(fmt::format_string<Args...> format, Args&&... args) {
  vlog(Level::debug, format, fmt::make_format_args(args...));
}
template <class... Args>
void info(fmt::format_string<Args...> format, Args&&... args) {
  vlog(Level::info, format, fmt::make_format_args(args...));
}
template <class... Args>
void warn(fmt::format_string<Args...> format, Args&&... args) {
  vlog(Level::warn, format, fmt::make_format_args(args...));
}

}  // namespace onnxq::cli::log
