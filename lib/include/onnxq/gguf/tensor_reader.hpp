// The one reader of a GGUF tensor's bytes, for any model: mapped or remote, one file or a
// split, either byte order. It hands out little-endian blocks (for decoding) or the stored
// bytes (for hashing), read into a scratch buffer: a local file's with pread (the page faults of
// touching its mapping cost more than the copy), a remote file's through its cache, big-endian
// numbers swapped. Only bytes held in memory (a stream read whole, a test's buffer) are handed
// out as views, and stored_view() gives the mapping to callers that keep the bytes. The mapping
// guard lives here: blocks() and stored() throw once a mapped file has shrunk, and read_blocks()
// / read_stored() check again after their reader has used the bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "onnxq/formats/block_source.hpp"
#include "onnxq/gguf/model.hpp"

namespace onnxq {

// True when the tensor's stored numbers are big-endian: a big-endian file, and a type with
// multi-byte numbers (plain F16, F32, I32 ..., or block fields such as the binary16 scales;
// see onnxq/formats/byte_order.hpp for the rule). mxfp4 and nvfp4 blocks never are.
bool tensor_data_is_big_endian(const GgufModel& model, const TensorInfo& tensor);

// The tensor's format; Error(Unsupported) naming its type id when onnxq does not know the type,
// so that it cannot be decoded.
const BlockFormat& known_format(const TensorInfo& tensor);

class TensorReader final : public BlockSource {
 public:
  // Both must outlive the reader.
  TensorReader(const GgufModel& model, const TensorInfo& tensor);

  const TensorInfo& tensor() const { return *tensor_; }
  // Both throw Error(Unsupported) for a tensor of a type onnxq does not know (see known_format).
  const BlockFormat& format() const override { return known_format(*tensor_); }
  std::uint64_t block_count() const override { return tensor_->byte_size / format().block_bytes; }

  // See BlockSource::blocks. Throws Error(InvalidArgument) outside the tensor, Error(Io) when a
  // read fails or the mapped file has shrunk.
  std::span<const std::byte> blocks(std::uint64_t first, std::uint64_t count,
                                    std::vector<std::byte>& scratch) const override;
  // Bytes [offset, offset + length) of the tensor as stored in the file (for hashes), in
  // `scratch` or (bytes held in memory) a view.
  std::span<const std::byte> stored(std::uint64_t offset, std::uint64_t length, std::vector<std::byte>& scratch) const;
  // The same, copied into the front of `buffer` (at least `length` bytes).
  std::span<const std::byte> stored(std::uint64_t offset, std::uint64_t length, std::span<std::byte> buffer) const;
  // The whole tensor as stored, as a view of the file's mapping, for a caller that keeps the bytes
  // without copying them (Tensor.raw()); nullopt for a remote file. Its reader calls check() after.
  std::optional<std::span<const std::byte>> stored_view() const;
  // True when reading the tensor again costs no fetch (a local file); false where every read is
  // a fetch (a remote file).
  bool stored_in_memory() const;
  // The tensor's little-endian bytes when they are held in memory and reading them costs less
  // than copying them; nullopt for a mapped, remote or big-endian one.
  std::optional<std::span<const std::byte>> view() const override;

  // blocks() / stored() handed to `use`, then check(): a view of a mapping that shrank reads as
  // zeros past the new end, and only a check after the reading tells.
  template <class Use>
  void read_blocks(std::uint64_t first, std::uint64_t count, std::vector<std::byte>& scratch, Use&& use) const {
    use(blocks(first, count, scratch));
    check();
  }
  template <class Use>
  void read_stored(std::uint64_t offset, std::uint64_t length, std::vector<std::byte>& scratch, Use&& use) const {
    use(stored(offset, length, scratch));
    check();
  }
  // Throws Error(Io) naming the file when bytes handed out may have been zeros read past the new
  // end of a mapped file that shrank (call it once the bytes were used).
  void check() const override;
  // A hint that stored bytes [offset, offset + length) are read next (a mapping faults them in
  // at once). Never throws.
  void prefetch(std::uint64_t offset, std::uint64_t length) const noexcept;

  // Keeps alive the memory behind a view (the shard's mapping, or a remote file's header).
  std::shared_ptr<const void> keep_alive() const { return model_->keep_alive(*tensor_); }

 private:
  const GgufModel* model_;
  const TensorInfo* tensor_;
  bool big_endian_;
};

}  // namespace onnxq
