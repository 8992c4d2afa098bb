// Shell completions rendered from the CLI description: commands, options, fixed choices
// (e.g. --dtype), and file names where an argument names a file.
#pragma once

#include <string>

#include "docs/cli_model.hpp"

namespace onnxq::cli::docs {

std::string render_bash_completion(const CommandDoc& root);
std::string render_zsh_completion(const CommandDoc& root);

}  // namespace onnxq::cli::docs
