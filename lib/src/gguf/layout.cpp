// ggml's data-offset chain.
#include "onnxq/gguf/layout.hpp"

#include "onnxq/core/checked.hpp"

namespace onnxq {

std::optional<std::uint64_t> gguf_padded(std::uint64_t offset, std::uint64_t alignment) {
  return checked_align_up(offset, alignment);
}

std::vector<std::uint64_t> gguf_tensor_offsets(std::span<const std::uint64_t> byte_sizes, std::uint64_t alignment) {
  std::vector<std::uint64_t> offsets;
  offsets.reserve(byte_sizes.size() + 1);
  std::uint64_t next = 0;
  offsets.push_back(next);
  for (const std::uint64_t size : byte_sizes) {
    const auto padded = gguf_padded(size, alignment);
    const auto end = padded ? checked_add(next, *padded) : std::nullopt;
    if (!end) break;
    next = *end;
    offsets.push_back(next);
  }
  return offsets;
}

}  // namespace onnxq
