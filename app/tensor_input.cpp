#include "tensor_input.hpp"

#include <unistd.h>

#include <memory>
#include <span>

#include "common_options.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/io/mapped_file.hpp"
#include "onnxq/io/read_all.hpp"
#include "onnxq/npy/reader.hpp"
#include "output.hpp"

namespace onnxq::cli {
namespace {

bool from_stdin(const std::string& path) { return path.empty() || path == "-"; }

}  // namespace

InputBytes read_input_bytes(const std::string& path) {
  if (!from_stdin(path)) {
    auto mapped = MappedFile::open(path);
    return {mapped->bytes(), mapped, path};
  }
  if (path.empty() && !stdin_is_redirected())
    throw CLI::RequiredError("IN: give an input file, or pipe a .npy into standard input");
  auto buffer = std::make_shared<std::vector<std::byte>>(read_all(STDIN_FILENO, "standard input"));
  return {std::span<const std::byte>(*buffer), buffer, "standard input"};
}

void add_input_argument(CLI::App* cmd, std::string& path, const std::string& what) {
  names_path(cmd->add_option("IN", path, what + "; '-' or omitted: read standard input"));
}

Tensor read_npy_input(const std::string& path) {
  InputBytes in = read_input_bytes(path);
  return read_npy(in.bytes, in.owner, in.name);
}

Tensor read_npy_or_raw_input(const std::string& path, const RawInputOptions& raw, DType default_storage,
                             const std::vector<DType>& allowed_storage) {
  InputBytes in = read_input_bytes(path);
  const bool explicit_raw = !raw.storage.empty() || !raw.shape.empty();
  if (!explicit_raw && has_npy_magic(in.bytes)) return read_npy(in.bytes, in.owner, in.name);

  DType storage = default_storage;
  if (!raw.storage.empty()) {
    const auto parsed = parse_dtype_name(raw.storage);
    bool allowed = false;
    for (DType d : allowed_storage) allowed = allowed || (parsed && *parsed == d);
    if (!allowed) {
      std::string names;
      for (DType d : allowed_storage) names += (names.empty() ? "" : ", ") + std::string(dtype_info(d).short_name);
      throw CLI::ValidationError("--storage", "'" + raw.storage + "' is not one of " + names);
    }
    storage = *parsed;
  }
  const std::size_t word = dtype_info(storage).bits / 8;
  Shape shape = raw.shape;
  if (shape.empty()) {
    if (in.bytes.size() % word != 0)
      invalid_input(in.name + ": " + std::to_string(in.bytes.size()) + " bytes are not a whole number of " +
                    std::string(dtype_info(storage).short_name) + " words");
    shape = {static_cast<std::int64_t>(in.bytes.size() / word)};
  }
  const std::uint64_t need = shape_element_count(shape) * word;
  if (need != in.bytes.size())
    invalid_input(in.name + ": --shape " + shape_to_string(shape) + " of " +
                  std::string(dtype_info(storage).short_name) + " needs " + std::to_string(need) +
                  " bytes, the input has " + std::to_string(in.bytes.size()));
  return Tensor::view(storage, shape, in.bytes, in.owner);
}

}  // namespace onnxq::cli
