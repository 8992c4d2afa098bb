// The hidden `--generate man|bash|zsh|options` option: prints the man page, a shell completion (or,
// for tests, the option table of cli_model.hpp)
// built from the app's own option definitions, then exits 0 (scripts/gen-docs uses it).
#pragma once

#include <CLI/CLI.hpp>

namespace onnxq::cli::docs {

// Call after every command is registered. The option is hidden from --help.
void add_generate_option(CLI::App& app);

}  // namespace onnxq::cli::docs
