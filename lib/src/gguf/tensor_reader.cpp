#include "onnxq/gguf/tensor_reader.hpp"

#include <algorithm>
#include <string>

#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/formats/byte_order.hpp"

namespace onnxq {

const BlockFormat& known_format(const TensorInfo& tensor) {
  if (!tensor.format)
    fail(ErrorKind::Unsupported, "tensor '" + std::string(tensor.name) + "' has ggml type " +
                                     std::to_string(tensor.ggml_type) +
                                     ", which onnxq does not know: it cannot be decoded");
  return *tensor.format;
}

// An unknown type's byte order is unknown too: its bytes are only ever handed out as stored.
bool tensor_data_is_big_endian(const GgufModel& model, const TensorInfo& tensor) {
  return model.shards().at(tensor.shard).big_endian && tensor.format && has_byte_order(*tensor.format);
}

TensorReader::TensorReader(const GgufModel& model, const TensorInfo& tensor)
    : model_(&model), tensor_(&tensor), big_endian_(tensor_data_is_big_endian(model, tensor)) {}

namespace {

const ByteSource& source_of(const GgufModel& model, const TensorInfo& tensor) {
  return *model.shards().at(tensor.shard).source;
}

}  // namespace

std::span<const std::byte> TensorReader::stored(std::uint64_t offset, std::uint64_t length,
                                                std::vector<std::byte>& scratch) const {
  check();
  return model_->tensor_bytes(*tensor_, offset, length, scratch);
}

std::span<const std::byte> TensorReader::stored(std::uint64_t offset, std::uint64_t length,
                                                std::span<std::byte> buffer) const {
  check();
  return model_->tensor_bytes(*tensor_, offset, length, buffer);
}

bool TensorReader::stored_in_memory() const { return !model_->is_remote(*tensor_); }

void TensorReader::check() const { source_of(*model_, *tensor_).check(); }

void TensorReader::prefetch(std::uint64_t offset, std::uint64_t length) const noexcept {
  if (offset >= tensor_->byte_size) return;
  source_of(*model_, *tensor_).will_read(tensor_->file_offset + offset, std::min(length, tensor_->byte_size - offset));
}

std::span<const std::byte> TensorReader::blocks(std::uint64_t first, std::uint64_t count,
                                                std::vector<std::byte>& scratch) const {
  const std::uint64_t width = format().block_bytes;
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
  swap_byte_order(format(), scratch);
  return scratch;
}

std::optional<std::span<const std::byte>> TensorReader::stored_view() const {
  if (!stored_in_memory()) return std::nullopt;
  return model_->tensor_bytes(*tensor_);
}

std::optional<std::span<const std::byte>> TensorReader::view() const {
  if (big_endian_ || !stored_in_memory() || source_of(*model_, *tensor_).read_beats_view()) return std::nullopt;
  return model_->tensor_bytes(*tensor_);
}

}  // namespace onnxq
