// The one dispatch point: the only code that knows which SIMD path runs. It picks, once per call,
// the kernel for a format and output dtype (decoders) or the row-kernel set (Unpack), from tables
// built once per path from what lib/src/simd/ exports; the scalar path is the reference code.
#pragma once

#include <cstddef>
#include <vector>

#include "onnxq/decode/decode_blocks.hpp"
#include "simd/kernel_table.hpp"
#include "simd/quantize_kernels.hpp"
#include "simd/unpack_kernels.hpp"

namespace onnxq::decode {

// How decode_blocks() decodes one format to one output dtype: `fused` writes the output directly
// (a SIMD kernel); else `scalar`, the reference decoder to float32 (block formats); for plain
// types with neither, the scalar element conversion.
struct DecodeKernel {
  simd::FusedDecodeFn fused = nullptr;
  const BlockDecoder* scalar = nullptr;
};
// `streaming` asks for non-temporal stores (the kernel falls back to ordinary stores for a
// destination that is not 64-byte aligned).
DecodeKernel decode_kernel(const BlockFormat& format, DType out, bool streaming);
// Whether a decode of `out_bytes` bytes in all should bypass the caches.
bool want_streaming_stores(std::size_t out_bytes);

// The active path's quantizer for a block format; null where the scalar reference is the fastest.
const simd::QuantizeKernel* quantize_kernel(const BlockFormat& format);
// The active path's check that a row is all finite; null on the scalar path.
simd::FiniteCheckFn finite_check();

// The Unpack row kernels of the active path, and every set this CPU runs (portable first).
const simd::UnpackKernels& unpack_kernels();
std::vector<const simd::UnpackKernels*> all_unpack_kernels();

}  // namespace onnxq::decode
