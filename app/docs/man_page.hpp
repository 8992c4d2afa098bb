// man/onnxq.1: every command and option from the CLI description, plus the facts no
// option carries (exit codes, environment, the bf16 .npy convention, pipelines).
#pragma once

#include <string>
#include <string_view>

#include "docs/cli_model.hpp"

namespace onnxq::cli::docs {

std::string render_man_page(const CommandDoc& root, std::string_view version);

}  // namespace onnxq::cli::docs
