// Writing a command's result tensor as .npy: to -o FILE (temp file + rename), to stdout with -o -,
// or to stdout by default when stdout is a pipe or file. Never to a terminal.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "onnxq/core/tensor.hpp"

namespace onnxq::cli {

void add_npy_output_option(CLI::App* cmd, std::string& path);

// Throws CLI::RequiredError when -o is omitted and stdout is a terminal.
void write_npy_output(const Tensor& tensor, const std::string& path);
// .npy through an OutputSink; "-" is stdout (never a terminal).
void write_npy_file(const std::string& path, const Tensor& tensor);

}  // namespace onnxq::cli
