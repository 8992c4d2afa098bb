#include "onnxq/gguf/tensor_reader.hpp"

#include <string>

#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/formats/byte_order.hpp"

namespace onnxq {

bool tensor_data_is_big_endian(const GgufFile& model, const TensorInfo& tensor) {
  return model.shards().at(tensor.shard).big_endian && has_byte_order(*tensor.format);
}

TensorReader::TensorReader(const GgufFile& model, const TensorInfo& tensor)
    : model_(&model), tensor_(&tensor), big_endian_(tensor_data_is_big_endian(model, tensor)) {}

std::span<const std::byte> TensorReader::stored(std::uint64_t offset, std::uint64_t length,
                                                std::vector<std::byte>& scratch) const {
  return model_->tensor_bytes(*tensor_, offset, length, scratch);
}

bool TensorReader::stored_in_memory() const { return model_->shards().at(tensor_->shard).source == nullptr; }

std::span<const std::byte> TensorReader::blocks(std::uint64_t first, std::uint64_t count,
                                                std::vector<std::byte>& scratch) const {
  const std::uint64_t width = tensor_->format->block_bytes;
  const auto begin = checked_mul(first, width);
  const auto length = checked_mul(count, width);
  const auto end = begin && length ? checked_add(*begin, *length) : std::nullopt;
  if (!end || *end > tensor_->byte_size)
    invalid_argument("blocks [" + std::to_string(first) + ", +" + std::to_string(count) + ") lie outside tensor '" +
                     std::string(tensor_->name) + "'");
  if (*length == 0) return {};
  const std::span<const std::byte> bytes = stored(*begin, *length, scratch);
  if (!big_endian_) return bytes;
  if (bytes.data() != scratch.data()) scratch.assign(bytes.begin(), bytes.end());  // a view: copy to swap
  swap_byte_order(*tensor_->format, scratch);
  return scratch;
}

std::optional<std::span<const std::byte>> TensorReader::view() const {
  if (big_endian_ || !stored_in_memory()) return std::nullopt;
  return model_->tensor_bytes(*tensor_);
}

}  // namespace onnxq
