// Sizes on the command line: "5GB" (decimal, as Hugging Face's max_shard_size), "2GiB", "500M", "123".
#pragma once

#include <cstdint>
#include <string>

namespace onnxq::cli {

// Throws Error(InvalidArgument) for text that is not a positive size.
std::uint64_t parse_byte_size(const std::string& text);

}  // namespace onnxq::cli
