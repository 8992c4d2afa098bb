#include "onnxq/io/byte_source.hpp"

#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"

namespace onnxq {

std::optional<std::span<const std::byte>> ByteSource::view(std::uint64_t offset, std::uint64_t length) const {
  const auto end = checked_add(offset, length);
  if (!end || *end > size())
    invalid_argument("bytes [" + std::to_string(offset) + ", +" + std::to_string(length) + ") lie outside " + name());
  const auto all = view();
  if (!all) return std::nullopt;
  return all->subspan(static_cast<std::size_t>(offset), static_cast<std::size_t>(length));
}

}  // namespace onnxq
