// The scalar reference ("oracle") decoders, one per block format (lib/src/reference/<family>.cpp):
// each follows the specification's float32 operation order exactly, and every faster path must
// match it bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>

#include "onnxq/formats/format.hpp"

namespace onnxq {

// Decodes `block_count` consecutive blocks at `src` to float32, block_elements values
// per block, written to `y`. No alignment is required of `src`.
using BlockDecodeFn = void (*)(const std::uint8_t* src, std::size_t block_count, float* y);

// One row of a decoder table: a block format's decoder with the type and sizes of its format row.
struct BlockDecoder {
  std::uint32_t ggml_type;
  std::uint32_t block_elements;
  std::uint32_t block_bytes;
  BlockDecodeFn decode;
};

// The reference decoder of a block format; nullptr for plain types and unknown types.
// The BlockFormat overload indexes by BlockFormat::index (no search).
const BlockDecoder* scalar_block_decoder(const BlockFormat& format);
const BlockDecoder* scalar_block_decoder(std::uint32_t ggml_type);

}  // namespace onnxq
