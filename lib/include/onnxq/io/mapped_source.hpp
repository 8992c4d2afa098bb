// A local file as a ByteSource over its memory map (onnxq/io/mapped_file.hpp), owning the
// mapping and its guard. read() copies with pread(2) from the open file, never through the
// mapping: a page fault per 4 KiB page costs more than the kernel's copy (doc/design.md,
// "Reading tensor data"), and a file that shrank is a short read, an Error(Io). Readers of a view
// call check() after reading it (TensorReader does so for its callers).
#pragma once

#include <memory>
#include <string>

#include "onnxq/io/byte_source.hpp"
#include "onnxq/io/mapped_file.hpp"

namespace onnxq {

class MappedSource final : public ByteSource {
 public:
  // Throws Error(Io) as MappedFile::open does.
  static std::shared_ptr<const MappedSource> open(const std::string& path);
  explicit MappedSource(std::shared_ptr<const MappedFile> file);

  const std::string& name() const override { return file_->path(); }
  std::uint64_t size() const override { return file_->size(); }
  // Throws Error(Io) "PATH changed size while it was being read (...)" when the file ends early.
  void read(std::uint64_t offset, std::span<std::byte> dst, std::uint64_t read_ahead_end) const override;
  // True for a mapped file (a stream read into memory is cheaper to view).
  bool read_beats_view() const override;
  // The mapping; its reader calls check() once it has read it.
  std::optional<std::span<const std::byte>> view() const override { return file_->bytes(); }
  using ByteSource::view;
  void check() const override;
  // Asks the kernel to read the range ahead (posix_fadvise WILLNEED): reads come by pread.
  void will_read(std::uint64_t offset, std::uint64_t length) const noexcept override;

  // The mapping, for readers that keep views of it alive.
  const std::shared_ptr<const MappedFile>& file() const { return file_; }

 private:
  std::shared_ptr<const MappedFile> file_;
};

}  // namespace onnxq
