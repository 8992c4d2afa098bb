#include "command.hpp"

#include <algorithm>
#include <string_view>

namespace onnxq::cli {
namespace {

std::vector<const CommandRegistration*>& registry() {
  static std::vector<const CommandRegistration*> commands;
  return commands;
}

char** g_argv = nullptr;

}  // namespace

void remember_command_line(char** argv) { g_argv = argv; }
char** remembered_command_line() { return g_argv; }

CommandRegistration::CommandRegistration(std::string_view n, int o, AddCommandFn a) : name(n), order(o), add(a) {
  registry().push_back(this);
}

std::vector<const CommandRegistration*> registered_commands() {
  auto commands = registry();
  std::sort(commands.begin(), commands.end(), [](auto* a, auto* b) { return a->order < b->order; });
  return commands;
}

std::vector<const CommandRegistration*> commands_for(int argc, char** argv) {
  auto all = registered_commands();
  bool version = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--version") {
      version = true;
    } else if (arg == "-v" || arg == "-vv" || arg == "-vvv" || arg == "--verbose" || arg == "-q" || arg == "--quiet") {
      // global flags, which take no value
    } else if (!arg.starts_with("-")) {
      for (const CommandRegistration* c : all)
        if (c->name == arg) return {c};
      return all;  // not a command name: CLI11 reports it
    } else {
      return all;  // --help, --generate, anything else main does not know here
    }
  }
  if (version) return {};
  return all;
}

}  // namespace onnxq::cli
