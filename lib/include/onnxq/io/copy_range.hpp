// The tensor-data copier: bytes of a source file moved into an AtomicFile. Between two local
// files the kernel moves them (copy_file_range: no trip through user memory, and the file system
// shares the blocks where it can, as btrfs and XFS with reflink do for whole aligned blocks).
// Where it cannot (another file system on an old kernel, a remote source, a pipe as the output)
// the bytes are read from the ByteSource and written.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "onnxq/io/atomic_file.hpp"
#include "onnxq/io/byte_source.hpp"

namespace onnxq {

// Where copied bytes come from: a ByteSource and, when it is a local file, a descriptor of that
// file for the kernel's copy.
class CopySource {
 public:
  // `path` is the source's local path (no descriptor is opened for a URL, or when the file at
  // `path` is no longer the source's size).
  CopySource(std::shared_ptr<const ByteSource> source, const std::string& path);
  ~CopySource();
  CopySource(CopySource&& other) noexcept;
  CopySource& operator=(CopySource&&) = delete;
  CopySource(const CopySource&) = delete;

  const ByteSource& source() const { return *source_; }
  int descriptor() const { return fd_; }  // -1: copies read through source()

  // Bytes [offset, offset + dst.size()) into dst: with pread(2) from the descriptor when there is
  // one (no page faults of a mapping: about twice as fast), else from source(). Throws Error(Io)
  // "... changed size while it was being read" for a source that ends early.
  void read(std::uint64_t offset, std::span<std::byte> dst, std::uint64_t read_ahead_end) const;

 private:
  std::shared_ptr<const ByteSource> source_;
  int fd_ = -1;
};

struct CopyCounts {
  std::uint64_t kernel = 0;    // bytes moved by copy_file_range
  std::uint64_t buffered = 0;  // bytes read and written
};

// Copies bytes [src_offset, src_offset + length) of `from` to `to` at its write position,
// which advances by `length`. Throws Error(Io) naming the file that failed (a source that ends
// early, a full disk).
void copy_range(const CopySource& from, std::uint64_t src_offset, std::uint64_t length, AtomicFile& to,
                CopyCounts& counts);

}  // namespace onnxq
