// Decoding packed GGUF tensor data: per-format block decoders and a streaming entry
// point that decodes a range of whole blocks straight into the caller's buffer in
// any supported output dtype. Pure functions: bytes in, values out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "onnxq/core/dtype.hpp"
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

// The scalar reference ("oracle") decoder of a block format; nullptr for plain types
// and unknown types. These follow the specification's float32 operation order exactly.
// The BlockFormat overload indexes by BlockFormat::index (no search).
const BlockDecoder* scalar_block_decoder(const BlockFormat& format);
const BlockDecoder* scalar_block_decoder(std::uint32_t ggml_type);
// The decoder the library uses for a block format: the SIMD variant of the active path
// (onnxq/decode/isa.hpp) where there is one, else the scalar one. nullptr for plain types.
const BlockDecoder* block_decoder(const BlockFormat& format);

// Whether decode_blocks can write `format` as `out_dtype`: block formats and the
// float plain types to FLOAT/FLOAT16/BFLOAT16/DOUBLE; integer plain types also to
// their own dtype.
bool can_decode_to(const BlockFormat& format, DType out_dtype);
// The natural output dtype: the plain type's own dtype for integers, else FLOAT.
DType default_decode_dtype(const BlockFormat& format);

// Decodes blocks [first_block, first_block + block_count) of `src` (a tensor's packed
// bytes, block i at byte i * block_bytes) into `dst`, which receives
// block_count * block_elements elements of `out_dtype`, little-endian host order.
// Threads split the range into runs of whole blocks; threads == 0 uses all cores.
// Throws Error(InvalidArgument) for an unsupported dtype or a range outside `src`.
void decode_blocks(const BlockFormat& format, std::span<const std::byte> src, std::uint64_t first_block,
                   std::uint64_t block_count, DType out_dtype, void* dst, int threads = 0);

}  // namespace onnxq
