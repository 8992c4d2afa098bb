// Reading a command's input tensor: a .npy file, a .npy on standard input (IN is "-", or omitted
// while stdin is a pipe or file), or raw storage words with an explicit dtype and shape.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "onnxq/core/tensor.hpp"

namespace onnxq::cli {

// Adds the optional positional IN ("-" or omitted: standard input).
void add_input_argument(CLI::App* cmd, std::string& path, const std::string& what = "Input .npy file");

// IN's bytes: the file mapped, or standard input read to its end; `name` names it in messages.
// Throws CLI::RequiredError when there is no IN and stdin is a terminal.
struct InputBytes {
  std::span<const std::byte> bytes;
  std::shared_ptr<const void> owner;
  std::string name;
};
InputBytes read_input_bytes(const std::string& path);

// IN must be a .npy file. Throws CLI::RequiredError when there is no IN and stdin is a terminal.
Tensor read_npy_input(const std::string& path);

// Raw input: when `storage` or `shape` is given, or IN has no .npy magic, IN's bytes are words of
// `storage` (default_storage when empty) laid out in `shape` (default: 1-D, all the bytes).
struct RawInputOptions {
  std::string storage;
  std::vector<std::int64_t> shape;
};
Tensor read_npy_or_raw_input(const std::string& path, const RawInputOptions& raw, DType default_storage,
                             const std::vector<DType>& allowed_storage);

}  // namespace onnxq::cli
