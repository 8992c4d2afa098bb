// Decoding packed GGUF tensor data: a streaming entry point that decodes a range of whole
// blocks straight into the caller's buffer in any supported output dtype, through the active
// SIMD path's kernel or the scalar reference (onnxq/reference/scalar_decoders.hpp). Pure
// functions: bytes in, values out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "onnxq/core/dtype.hpp"
#include "onnxq/formats/block_source.hpp"
#include "onnxq/formats/format.hpp"
#include "onnxq/reference/scalar_decoders.hpp"

namespace onnxq {

// Whether decode_blocks can write `format` as `out_dtype`: block formats and the
// float plain types to FLOAT/FLOAT16/BFLOAT16/DOUBLE; integer plain types also to
// their own dtype.
bool can_decode_to(const BlockFormat& format, DType out_dtype);
// The natural output dtype: the plain type's own dtype for integers, else FLOAT.
DType default_decode_dtype(const BlockFormat& format);
// The dtype an exported tensor has (safetensors and ONNX alike): `float_dtype` (default FLOAT) for
// block formats; a plain float tensor's own type unless `float_dtype` asks for another; integers
// always their own, exact.
DType export_decode_dtype(const BlockFormat& format, std::optional<DType> float_dtype);

// Decodes blocks [first_block, first_block + block_count) of `src` (a tensor's packed
// bytes, block i at byte i * block_bytes) into `dst`, which receives
// block_count * block_elements elements of `out_dtype`, little-endian host order.
// Threads split the range into runs of whole blocks; threads == 0 uses all cores.
// Throws Error(InvalidArgument) for an unsupported dtype or a range outside `src`.
void decode_blocks(const BlockFormat& format, std::span<const std::byte> src, std::uint64_t first_block,
                   std::uint64_t block_count, DType out_dtype, void* dst, int threads = 0);

// The same over any BlockSource (a GGUF tensor, packed bytes in memory): the source hands out
// each chunk (onnxq/core/parallel.hpp's kChunkElements) into a scratch buffer per thread where
// it is not a view, so memory stays bounded; after each chunk the source is checked
// (BlockSource::check). Throws Error(InvalidArgument) for a range outside the source.
void decode_blocks(const BlockSource& src, std::uint64_t first_block, std::uint64_t block_count, DType out_dtype,
                   void* dst, int threads = 0);

}  // namespace onnxq
