// The streaming entry point: decode a range of whole blocks into the caller's buffer.

#include <algorithm>
#include <string>
#include <vector>

#include "decode/dispatch.hpp"
#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/core/parallel.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "reference/output_convert.hpp"
#include "reference/plain.hpp"

namespace onnxq {
namespace {

bool is_output_float(DType t) {
  return t == DType::Float || t == DType::Float16 || t == DType::BFloat16 || t == DType::Double;
}

// Block formats that are not FLOAT go through a small float32 tile (L1-sized) so that the
// conversion reads each block's finished values once, right after they were decoded.
constexpr std::size_t kTileElements = 1024;

void decode_block_run(const BlockDecoder& dec, const std::uint8_t* src, std::size_t blocks, DType out, std::byte* dst) {
  if (out == DType::Float) {
    dec.decode(src, blocks, reinterpret_cast<float*>(dst));
    return;
  }
  alignas(64) float tile[kTileElements];
  const std::size_t per_tile = std::max<std::size_t>(1, kTileElements / dec.block_elements);
  const std::size_t out_size = dtype_info(out).bits / 8;
  for (std::size_t done = 0; done < blocks;) {
    const std::size_t k = std::min(per_tile, blocks - done);
    dec.decode(src + done * dec.block_bytes, k, tile);
    reference::store_floats(tile, k * dec.block_elements, out, dst + done * dec.block_elements * out_size);
    done += k;
  }
}

}  // namespace

bool can_decode_to(const BlockFormat& format, DType out_dtype) {
  if (is_output_float(out_dtype)) return true;
  return !format.is_block_format() && out_dtype == format.plain_dtype;
}

DType export_decode_dtype(const BlockFormat& format, std::optional<DType> float_dtype) {
  if (format.is_block_format()) return float_dtype.value_or(DType::Float);
  if (dtype_info(format.plain_dtype).is_integer) return format.plain_dtype;  // integers stay exact
  return float_dtype.value_or(format.plain_dtype);
}

DType default_decode_dtype(const BlockFormat& format) {
  if (!format.is_block_format() && dtype_info(format.plain_dtype).is_integer) return format.plain_dtype;
  return DType::Float;
}

namespace {

// decode_blocks over a span, with the choice of non-temporal stores made by the caller: a
// BlockSource's chunks are decoded one call each, and their stores stream when the whole output does.
void decode_span(const BlockFormat& format, std::span<const std::byte> src, std::uint64_t first_block,
                 std::uint64_t block_count, DType out_dtype, void* dst, int threads, bool streaming) {
  if (!can_decode_to(format, out_dtype))
    invalid_argument("cannot decode " + std::string(format.gguf_name) + " to " +
                     std::string(dtype_info(out_dtype).onnx_name) + "; expected FLOAT, FLOAT16, BFLOAT16 or DOUBLE");
  const std::size_t out_size = dtype_info(out_dtype).bits / 8;
  const std::size_t block_out_bytes = std::size_t{format.block_elements} * out_size;
  const decode::DecodeKernel kernel = decode::decode_kernel(format, out_dtype, streaming);
  if (format.is_block_format() && !kernel.fused && !kernel.scalar)
    fail(ErrorKind::Unsupported, "no decoder for " + std::string(format.gguf_name));
  const auto end_block = checked_add(first_block, block_count);
  const auto end_byte = end_block ? checked_mul(*end_block, format.block_bytes) : std::nullopt;
  if (!end_byte || *end_byte > src.size())
    invalid_argument("blocks [" + std::to_string(first_block) + ", +" + std::to_string(block_count) + ") of " +
                     std::string(format.gguf_name) + " lie outside the " + std::to_string(src.size()) + " input bytes");
  if (block_count == 0) return;

  const auto* in = reinterpret_cast<const std::uint8_t*>(src.data()) + first_block * format.block_bytes;
  auto* out = static_cast<std::byte*>(dst);
  auto run = [&](std::size_t begin, std::size_t count) {
    if (kernel.fused)  // a SIMD kernel: decode fused with the output conversion
      kernel.fused(in + begin * format.block_bytes, count, out + begin * block_out_bytes);
    else if (kernel.scalar)
      decode_block_run(*kernel.scalar, in + begin * format.block_bytes, count, out_dtype,
                       out + begin * block_out_bytes);
    else
      reference::convert_plain(format.plain_dtype, in + begin * format.block_bytes, count, out_dtype,
                               out + begin * block_out_bytes);
  };

  // Threads take the library's chunks of whole blocks.
  const std::size_t chunk = std::max<std::size_t>(1, kChunkElements / format.block_elements);
  const std::size_t chunks = (block_count + chunk - 1) / chunk;
  if (chunks <= 1 || resolve_threads(threads) <= 1) {
    run(0, block_count);
    return;
  }
  parallel_chunks(resolve_threads(threads), chunks, [&](unsigned, std::uint64_t c) {
    const std::size_t begin = c * chunk;
    run(begin, std::min<std::size_t>(chunk, block_count - begin));
  });
}

bool streams(const BlockFormat& format, std::uint64_t block_count, DType out_dtype) {
  return decode::want_streaming_stores(block_count * format.block_elements * (dtype_info(out_dtype).bits / 8));
}

}  // namespace

void decode_blocks(const BlockFormat& format, std::span<const std::byte> src, std::uint64_t first_block,
                   std::uint64_t block_count, DType out_dtype, void* dst, int threads) {
  decode_span(format, src, first_block, block_count, out_dtype, dst, threads, streams(format, block_count, out_dtype));
}

void decode_blocks(const BlockSource& src, std::uint64_t first_block, std::uint64_t block_count, DType out_dtype,
                   void* dst, int threads) {
  const BlockFormat& format = src.format();
  const auto end = checked_add(first_block, block_count);
  if (!end || *end > src.block_count())
    invalid_argument("blocks [" + std::to_string(first_block) + ", +" + std::to_string(block_count) + ") of " +
                     std::string(format.gguf_name) + " lie outside the source's " + std::to_string(src.block_count()) +
                     " blocks");
  if (!can_decode_to(format, out_dtype) || block_count == 0) {  // nothing to read: the span form checks the rest
    decode_blocks(format, {}, 0, 0, out_dtype, dst, 1);
    return;
  }
  if (const auto bytes = src.view()) {  // one call: its kernel is chosen for the whole output
    decode_blocks(format, *bytes, first_block, block_count, out_dtype, dst, threads);
    src.check();  // a mapping reads as zeros past a new end of its file
    return;
  }
  const std::uint64_t chunk = std::max<std::uint64_t>(1, kChunkElements / format.block_elements);
  const std::uint64_t chunks = (block_count + chunk - 1) / chunk;
  const std::size_t out_block = std::size_t{format.block_elements} * (dtype_info(out_dtype).bits / 8);
  const unsigned team = static_cast<unsigned>(std::min<std::uint64_t>(chunks, resolve_threads(threads)));
  const bool streaming = streams(format, block_count, out_dtype);
  std::vector<std::vector<std::byte>> scratch(team);  // per thread
  parallel_chunks(team, chunks, [&](unsigned worker, std::uint64_t c) {
    const std::uint64_t at = c * chunk;
    const std::uint64_t n = std::min(chunk, block_count - at);
    const auto bytes = src.blocks(first_block + at, n, scratch[worker]);
    decode_span(format, bytes, 0, n, out_dtype, static_cast<std::byte*>(dst) + at * out_block, 1, streaming);
    src.check();  // a mapping reads as zeros past a new end of its file
  });
}

}  // namespace onnxq
