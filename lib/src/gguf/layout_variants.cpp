#include "layout_variants.hpp"

namespace onnxq::gguf_detail {

std::span<const LayoutVariant> layout_variants() {
  // PrismML's Q2_0 (llama.cpp #24448, #25188): 128 values in 34 bytes where ggml's are 64 in 18.
  static constexpr LayoutVariant kVariants[] = {
      {42, "PrismML's Q2_0", 128, 34},
  };
  return kVariants;
}

}  // namespace onnxq::gguf_detail
