// Subcommands register themselves here; main.cpp only wires the registry to CLI11.
// Each app/commands/<name>.cpp defines one registration:
//
//   static const onnxq::cli::CommandRegistration reg{"info", 10, &add_info_command};
//
// where add_info_command creates the subcommand, its options, and a callback that runs it.
#pragma once

#include <string_view>
#include <vector>

// Declared only: the files that define commands include CLI11 (common_options.hpp).
namespace CLI {
class App;
}  // namespace CLI

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

// main's argv, kept so that a command can re-execute the same command line in another program.
void remember_command_line(char** argv);
char** remembered_command_line();

// All registered commands, sorted by `order`.
std::vector<const CommandRegistration*> registered_commands();

// The commands main must define for this command line. Building every command's options is most
// of a short run's CPU time, so when argv names a command only that one is built; with no command
// and only global flags and --version, none; otherwise (help, --generate, a typo) all of them, so
// that help lists them all and CLI11 reports unknown names as usual.
std::vector<const CommandRegistration*> commands_for(int argc, char** argv);

}  // namespace onnxq::cli
