#include "command.hpp"

#include <algorithm>

namespace onnxq::cli {
namespace {

std::vector<const CommandRegistration*>& registry() {
  static std::vector<const CommandRegistration*> commands;
  return commands;
}

}  // namespace

CommandRegistration::CommandRegistration(std::string_view n, int o, AddCommandFn a) : name(n), order(o), add(a) {
  registry().push_back(this);
}

std::vector<const CommandRegistration*> registered_commands() {
  auto commands = registry();
  std::sort(commands.begin(), commands.end(), [](auto* a, auto* b) { return a->order < b->order; });
  return commands;
}

}  // namespace onnxq::cli
