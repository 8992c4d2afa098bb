#include "onnxq/gguf/tensor_decode.hpp"

#include <algorithm>
#include <vector>

#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/core/mapping_guard.hpp"
#include "onnxq/core/parallel.hpp"

namespace onnxq {
namespace {

// Input bytes swapped per step: small enough to stay in L2 between the swap and the decode.
constexpr std::uint64_t kSwapChunkBytes = 256u << 10;

}  // namespace

bool tensor_data_is_big_endian(const GgufFile& model, const TensorInfo& tensor) {
  return model.shards().at(tensor.shard).big_endian && has_byte_order(*tensor.format);
}

namespace {

// Blocks of a remote tensor, read into `scratch` and made little-endian there.
std::span<const std::byte> remote_blocks(const GgufFile& model, const TensorInfo& tensor, std::uint64_t first_block,
                                         std::uint64_t block_count, std::vector<std::byte>& scratch) {
  const std::uint64_t width = tensor.format->block_bytes;
  const auto begin = checked_mul(first_block, width);
  const auto length = checked_mul(block_count, width);
  if (!begin || !length)
    invalid_argument("blocks [" + std::to_string(first_block) + ", +" + std::to_string(block_count) +
                     ") lie outside tensor '" + std::string(tensor.name) + "'");
  model.tensor_bytes(tensor, *begin, *length, scratch);
  if (tensor_data_is_big_endian(model, tensor)) swap_byte_order(*tensor.format, scratch);
  return scratch;
}

}  // namespace

std::span<const std::byte> little_endian_tensor_blocks(const GgufFile& model, const TensorInfo& tensor,
                                                       std::uint64_t first_block, std::uint64_t block_count,
                                                       std::vector<std::byte>& scratch) {
  if (model.is_remote(tensor)) return remote_blocks(model, tensor, first_block, block_count, scratch);
  return little_endian_blocks(*tensor.format, model.tensor_bytes(tensor), tensor_data_is_big_endian(model, tensor),
                              first_block, block_count, scratch);
}

void decode_tensor_blocks(const GgufFile& model, const TensorInfo& tensor, std::uint64_t first_block,
                          std::uint64_t block_count, DType out_dtype, void* dst, int threads) {
  if (model.is_remote(tensor)) {  // only these blocks are read, through the source's cache
    std::vector<std::byte> scratch;
    decode_blocks(*tensor.format, remote_blocks(model, tensor, first_block, block_count, scratch), 0, block_count,
                  out_dtype, dst, threads);
    return;
  }
  const std::span<const std::byte> bytes = model.tensor_bytes(tensor);
  if (!tensor_data_is_big_endian(model, tensor)) {
    decode_blocks(*tensor.format, bytes, first_block, block_count, out_dtype, dst, threads);
    throw_if_mapped_file_changed();  // the mapping read as zeros past a new end of the file
    return;
  }
  const BlockFormat& format = *tensor.format;
  const auto end = checked_add(first_block, block_count);
  if (!end || *end > bytes.size() / format.block_bytes)
    invalid_argument("blocks [" + std::to_string(first_block) + ", +" + std::to_string(block_count) +
                     ") lie outside tensor '" + std::string(tensor.name) + "'");
  const std::uint64_t step = std::max<std::uint64_t>(1, kSwapChunkBytes / format.block_bytes);
  const std::uint64_t steps = (block_count + step - 1) / step;
  const std::size_t out_block = std::size_t{format.block_elements} * (dtype_info(out_dtype).bits / 8);
  const unsigned team = static_cast<unsigned>(std::clamp<std::uint64_t>(steps, 1, resolve_threads(threads)));
  auto decode_step = [&](std::uint64_t s, std::vector<std::byte>& scratch) {
    const std::uint64_t at = s * step;
    const std::uint64_t n = std::min(step, block_count - at);
    const auto le = little_endian_blocks(format, bytes, true, first_block + at, n, scratch);
    decode_blocks(format, le, 0, n, out_dtype, static_cast<std::byte*>(dst) + at * out_block, 1);
  };
  std::vector<std::vector<std::byte>> scratch(team);  // per worker
  parallel_chunks(team, steps, [&](unsigned worker, std::uint64_t s) { decode_step(s, scratch[worker]); });
  throw_if_mapped_file_changed();
}

}  // namespace onnxq
