// Internal: block layouts that forks store under a mainline ggml type id. onnxq decodes none of
// them; the parser names the one that fits when a file's layout disagrees with ggml's.
#pragma once

#include <cstdint>
#include <span>

namespace onnxq::gguf_detail {

struct LayoutVariant {
  std::uint32_t ggml_type;  // the mainline id the fork reuses
  const char* name;         // e.g. "PrismML's Q2_0"
  std::uint32_t block_elements;
  std::uint32_t block_bytes;
};

std::span<const LayoutVariant> layout_variants();

}  // namespace onnxq::gguf_detail
