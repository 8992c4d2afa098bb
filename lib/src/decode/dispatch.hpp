// The SIMD side of the one dispatch point: what block_decoder(), decode_blocks() and the
// plain conversions ask. Every function answers nullptr/false when the active path is
// scalar or has no SIMD version, and the caller then uses the scalar reference.
#pragma once

#include <cstddef>
#include <cstdint>

#include "onnxq/decode/decode_blocks.hpp"
#include "simd/kernel_table.hpp"

namespace onnxq::simd {

// A decoder-table row whose float32 decoder is the active path's SIMD one.
const BlockDecoder* simd_block_decoder(std::uint32_t ggml_type);
// The decoder writing `out` directly: for a block format the one behind `dec` (a row from
// simd_block_decoder; scalar rows have none), for plain F32/F16/BF16 the element-wise
// conversion (block_count = element count). nullptr = use the scalar path.
// `streaming` asks for non-temporal stores.
FusedDecodeFn fused_decoder(const BlockFormat& format, const BlockDecoder* dec, DType out, bool streaming);
// Whether a decode of `out_bytes` bytes in all should bypass the caches. (The streaming
// decoders fall back to ordinary stores for a run whose destination is not 64-byte aligned.)
bool want_streaming_stores(std::size_t out_bytes);

}  // namespace onnxq::simd
