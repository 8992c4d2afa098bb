// Where a decoder's input comes from: whole blocks of one format with little-endian numbers,
// handed out a range at a time. A GGUF tensor (gguf/tensor_reader.hpp) and packed bytes in
// memory are both one, so a consumer never asks where the bytes live or in which byte order.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "onnxq/formats/format.hpp"

namespace onnxq {

class BlockSource {
 public:
  virtual ~BlockSource() = default;
  virtual const BlockFormat& format() const = 0;
  virtual std::uint64_t block_count() const = 0;
  // Blocks [first, first + count) with little-endian numbers: a view of memory that already
  // holds them, or `scratch` filled (read, byte-swapped). Throws Error(InvalidArgument) for a
  // range outside the source. A view of a mapped file is read when the caller reads it; the
  // caller then calls check().
  virtual std::span<const std::byte> blocks(std::uint64_t first, std::uint64_t count,
                                            std::vector<std::byte>& scratch) const = 0;
  // All blocks as one view, when blocks() of any range would be a view of it (the bytes are in
  // memory, little-endian): a decoder may then hand the whole range to its kernels at once.
  virtual std::optional<std::span<const std::byte>> view() const { return std::nullopt; }
  // Throws Error(Io) when the bytes handed out since were not the source's (a mapped file that
  // shrank while they were read reads as zeros): a consumer calls it after using each range.
  // Memory that cannot change has nothing to check.
  virtual void check() const {}
};

// Packed bytes in memory (whole blocks). `big_endian`: their multi-byte numbers are stored
// big-endian (onnxq/formats/byte_order.hpp); blocks() then swaps them into its scratch.
class PackedBytes final : public BlockSource {
 public:
  PackedBytes(const BlockFormat& format, std::span<const std::byte> bytes, bool big_endian = false)
      : format_(&format), bytes_(bytes), big_endian_(big_endian) {}
  const BlockFormat& format() const override { return *format_; }
  std::uint64_t block_count() const override { return bytes_.size() / format_->block_bytes; }
  std::span<const std::byte> bytes() const { return bytes_; }
  std::span<const std::byte> blocks(std::uint64_t first, std::uint64_t count,
                                    std::vector<std::byte>& scratch) const override;
  std::optional<std::span<const std::byte>> view() const override;

 private:
  const BlockFormat* format_;
  std::span<const std::byte> bytes_;
  bool big_endian_;
};

}  // namespace onnxq
