#include "log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace onnxq::cli::log {

void setup_logging(int verbosity, bool quiet) {
  auto logger = spdlog::stderr_color_mt("onnxq");
  logger->set_pattern("onnxq: %l: %v");
  spdlog::set_default_logger(logger);
  if (quiet)
    spdlog::set_level(spdlog::level::err);
  else if (verbosity >= 2)
    spdlog::set_level(spdlog::level::debug);
  else if (verbosity == 1)
    spdlog::set_level(spdlog::level::info);
  else
    spdlog::set_level(spdlog::level::warn);
}

void vlog(Level level, fmt::string_view format, fmt::format_args args) {
  const auto spd = level == Level::debug  ? spdlog::level::debug
                   : level == Level::info ? spdlog::level::info
                                          : spdlog::level::warn;
  spdlog::logger* logger = spdlog::default_logger_raw();
  if (!logger->should_log(spd)) return;  // as spdlog::info(...): no formatting below the level
  logger->log(spd, spdlog::string_view_t(fmt::vformat(format, args)));
}

}  // namespace onnxq::cli::log
