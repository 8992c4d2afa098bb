// Byte swapping of stored tensor data, driven by the field lists of the format rows.
#include "onnxq/formats/byte_order.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/formats/block_source.hpp"

namespace onnxq {
namespace {

template <class Word>
Word reversed(Word w) {
  if constexpr (sizeof(Word) == 2) return __builtin_bswap16(w);
  if constexpr (sizeof(Word) == 4) return __builtin_bswap32(w);
  if constexpr (sizeof(Word) == 8) return __builtin_bswap64(w);
}

// A fixed width, loads and stores through memcpy: the compiler keeps each word in a register (and
// turns the loop into vector shuffles where it can).
template <class Word>
void reverse_words(std::byte* p, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    Word w;
    std::memcpy(&w, p + i * sizeof(Word), sizeof(Word));
    w = reversed(w);
    std::memcpy(p + i * sizeof(Word), &w, sizeof(Word));
  }
}

void reverse_words(std::byte* p, std::size_t bytes, unsigned width) {
  switch (width) {
    case 1: return;
    case 2: return reverse_words<std::uint16_t>(p, bytes / 2);
    case 4: return reverse_words<std::uint32_t>(p, bytes / 4);
    case 8: return reverse_words<std::uint64_t>(p, bytes / 8);
    default:
      for (std::size_t i = 0; i + width <= bytes; i += width) std::reverse(p + i, p + i + width);
  }
}

}  // namespace

bool has_byte_order(const BlockFormat& format) {
  if (!format.is_block_format()) return format.block_bytes > 1;
  return std::any_of(format.fields.begin(), format.fields.end(),
                     [](const BlockField& f) { return field_word_bytes(f.kind) > 1; });
}

void swap_byte_order(const BlockFormat& format, std::span<std::byte> blocks) {
  const std::size_t block = format.block_bytes;
  if (blocks.size() % block != 0)
    invalid_argument(std::to_string(blocks.size()) + " bytes are not a whole number of " +
                     std::string(format.gguf_name) + " blocks of " + std::to_string(block) + " bytes");
  if (!format.is_block_format()) return reverse_words(blocks.data(), blocks.size(), format.block_bytes);
  std::vector<BlockField> numbers;
  for (const BlockField& f : format.fields)
    if (field_word_bytes(f.kind) > 1) numbers.push_back(f);
  for (std::size_t at = 0; at < blocks.size(); at += block)
    for (const BlockField& f : numbers) reverse_words(blocks.data() + at + f.offset, f.width, field_word_bytes(f.kind));
}

std::span<const std::byte> little_endian_blocks(const BlockFormat& format, std::span<const std::byte> src,
                                                bool big_endian, std::uint64_t first_block, std::uint64_t block_count,
                                                std::vector<std::byte>& scratch) {
  const auto end = checked_add(first_block, block_count);
  if (!end || *end > src.size() / format.block_bytes)
    invalid_argument("blocks [" + std::to_string(first_block) + ", +" + std::to_string(block_count) + ") of " +
                     std::string(format.gguf_name) + " lie outside the " + std::to_string(src.size()) + " input bytes");
  const auto range = src.subspan(static_cast<std::size_t>(first_block * format.block_bytes),
                                 static_cast<std::size_t>(block_count * format.block_bytes));
  if (!big_endian || !has_byte_order(format)) return range;
  scratch.assign(range.begin(), range.end());
  swap_byte_order(format, scratch);
  return scratch;
}

std::span<const std::byte> PackedBytes::blocks(std::uint64_t first, std::uint64_t count,
                                               std::vector<std::byte>& scratch) const {
  return little_endian_blocks(*format_, bytes_, big_endian_, first, count, scratch);
}

std::optional<std::span<const std::byte>> PackedBytes::view() const {
  if (big_endian_ && has_byte_order(*format_)) return std::nullopt;
  return bytes_.first(static_cast<std::size_t>(block_count() * format_->block_bytes));
}

}  // namespace onnxq
