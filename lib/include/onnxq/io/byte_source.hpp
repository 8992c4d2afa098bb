// A file's bytes read by offset, wherever they live: a mapping (onnxq/io/mapped_source.hpp), a
// file descriptor read with pread (onnxq/io/pread_source.hpp), a remote file (onnxq/io/remote_file.hpp).
// Every reader of a GGUF file's bytes goes through one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace onnxq {

class ByteSource {
 public:
  virtual ~ByteSource() = default;

  // The name used in messages (a path or URL, never a credential).
  virtual const std::string& name() const = 0;
  virtual std::uint64_t size() const = 0;
  // Copies bytes [offset, offset + dst.size()) into dst; the range must lie inside the file.
  // `read_ahead_end` (at least offset + dst.size()) tells how far the caller will read on in
  // order, so a source may fetch up to there in one go. Safe to call from several threads.
  // Throws Error(Io).
  virtual void read(std::uint64_t offset, std::span<std::byte> dst, std::uint64_t read_ahead_end) const = 0;

  // The whole file in memory when the source holds it so (a mapping), nullopt when every read
  // is a copy. A view of a mapping may read zeros past a new end of a file that shrank: whoever
  // reads through it calls check() after reading.
  virtual std::optional<std::span<const std::byte>> view() const { return std::nullopt; }
  // True when read() into a buffer costs less than reading through view(): a mapping, whose first
  // touch of each page is a page fault. Readers of tensor data then read; the view stays for the
  // header and for callers that keep the bytes (Tensor.raw()).
  virtual bool read_beats_view() const { return false; }
  // Bytes [offset, offset + length) of view(), or nullopt. Throws Error(InvalidArgument) outside the file.
  std::optional<std::span<const std::byte>> view(std::uint64_t offset, std::uint64_t length) const;
  // Throws Error(Io) when bytes already handed out are known to be wrong (a mapped file shrank
  // under its mapping); cheap otherwise.
  virtual void check() const {}
  // A hint: bytes [offset, offset + length) are about to be read, so a source may bring them in
  // ahead (fault a mapping's pages in at once). Never throws.
  virtual void will_read(std::uint64_t /*offset*/, std::uint64_t /*length*/) const noexcept {}
};

}  // namespace onnxq
