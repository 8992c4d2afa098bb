// Subcommands register themselves here; main.cpp only wires the registry to CLI11.
// Each app/commands/<name>.cpp defines one registration:
//
//   static const onnxq::cli::CommandRegistration reg{"info", 10, &add_info_command};
//
// where add_info_command creates the subcommand, its options, and a callback that runs it.
#pragma once

#include <CLI/CLI.hpp>
#include <string_view>
#include <vector>

namespace onnxq::cli {

// Options every command shares (set on the top-level app).
struct GlobalOptions {
  int verbosity = 0;   // -v: info, -vv: debug
  bool quiet = false;  // -q: no warnings, no progress
  double timeout = 0;  // --timeout: seconds a remote server may take to connect or stall (0: default)
};

using AddCommandFn = void (*)(CLI::App& app, const GlobalOptions& global);

struct CommandRegistration {
  CommandRegistration(std::string_view name, int order, AddCommandFn add);
  std::string_view name;
  int order;  // position in --help
  AddCommandFn add;
};

// All registered commands, sorted by `order`.
std::vector<const CommandRegistration*> registered_commands();

}  // namespace onnxq::cli
