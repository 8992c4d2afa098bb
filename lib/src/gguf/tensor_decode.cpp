#include "onnxq/gguf/tensor_decode.hpp"

#include <algorithm>
#include <vector>

#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"

namespace onnxq {

bool tensor_data_is_big_endian(const GgufFile& model, const TensorInfo& tensor) {
  return model.shards().at(tensor.shard).big_endian && !tensor.format->is_block_format() &&
         tensor.format->block_bytes > 1;
}

namespace {

void swap_elements(std::span<std::byte> bytes, std::size_t width) {
  for (std::size_t i = 0; i + width <= bytes.size(); i += width) std::reverse(&bytes[i], &bytes[i] + width);
}

}  // namespace

std::span<const std::byte> little_endian_tensor_bytes(const GgufFile& model, const TensorInfo& tensor,
                                                      std::vector<std::byte>& storage) {
  if (model.is_remote(tensor)) {
    model.tensor_bytes(tensor, 0, tensor.byte_size, storage);
    if (tensor_data_is_big_endian(model, tensor)) swap_elements(storage, tensor.format->block_bytes);
    return storage;
  }
  const std::span<const std::byte> bytes = model.tensor_bytes(tensor);
  if (!tensor_data_is_big_endian(model, tensor)) return bytes;
  storage.assign(bytes.begin(), bytes.end());
  swap_elements(storage, tensor.format->block_bytes);
  return storage;
}

void decode_tensor_blocks(const GgufFile& model, const TensorInfo& tensor, std::uint64_t first_block,
                          std::uint64_t block_count, DType out_dtype, void* dst, int threads) {
  if (model.is_remote(tensor)) {
    // Only these blocks' bytes are read (through the source's cache).
    const std::size_t width = tensor.format->block_bytes;
    const auto begin = checked_mul(first_block, width);
    const auto length = checked_mul(block_count, width);
    if (!begin || !length)
      invalid_argument("blocks [" + std::to_string(first_block) + ", +" + std::to_string(block_count) +
                       ") lie outside tensor '" + std::string(tensor.name) + "'");
    std::vector<std::byte> storage;
    model.tensor_bytes(tensor, *begin, *length, storage);
    if (tensor_data_is_big_endian(model, tensor)) swap_elements(storage, width);
    decode_blocks(*tensor.format, storage, 0, block_count, out_dtype, dst, threads);
    return;
  }
  const std::span<const std::byte> bytes = model.tensor_bytes(tensor);
  if (!tensor_data_is_big_endian(model, tensor)) {
    decode_blocks(*tensor.format, bytes, first_block, block_count, out_dtype, dst, threads);
    return;
  }
  const std::size_t width = tensor.format->block_bytes;
  const auto end = checked_add(first_block, block_count);
  if (!end || *end > bytes.size() / width)
    invalid_argument("elements [" + std::to_string(first_block) + ", +" + std::to_string(block_count) +
                     ") lie outside tensor '" + std::string(tensor.name) + "'");
  std::vector<std::byte> swapped(bytes.begin() + static_cast<std::ptrdiff_t>(first_block * width),
                                 bytes.begin() + static_cast<std::ptrdiff_t>(*end * width));
  swap_elements(swapped, width);
  decode_blocks(*tensor.format, swapped, 0, block_count, out_dtype, dst, threads);
}

}  // namespace onnxq
