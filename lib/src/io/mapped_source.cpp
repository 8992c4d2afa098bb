#include "onnxq/io/mapped_source.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

#include "io/read_loop.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/io/mapping_guard.hpp"

namespace onnxq {

std::shared_ptr<const MappedSource> MappedSource::open(const std::string& path) {
  return std::make_shared<const MappedSource>(MappedFile::open(path));
}

MappedSource::MappedSource(std::shared_ptr<const MappedFile> file) : file_(std::move(file)) {}

void MappedSource::read(std::uint64_t offset, std::span<std::byte> dst, std::uint64_t) const {
  const auto bytes = *ByteSource::view(offset, dst.size());  // checks the range
  if (file_->descriptor() < 0) {                             // a stream, held in memory
    if (!dst.empty()) std::memcpy(dst.data(), bytes.data(), dst.size());
    return;
  }
  detail::read_fully(
      [fd = file_->descriptor()](std::byte* buffer, std::size_t count, std::uint64_t at) {
        return ::pread(fd, buffer, count, static_cast<off_t>(at));
      },
      offset, dst, file_->path(), file_->size());
}

bool MappedSource::read_beats_view() const { return file_->descriptor() >= 0 && file_->size() > 0; }

void MappedSource::check() const { throw_if_mapped_file_changed(); }

void MappedSource::will_read(std::uint64_t offset, std::uint64_t length) const noexcept {
  // Only a hint, for a file read with pread (a stream's bytes are in memory already): a cold file's
  // pages are read ahead. The mapping is left alone; filling its page tables for data that pread
  // copies cost as much as the copy.
  if (file_->descriptor() < 0 || offset >= file_->size() || length == 0) return;
  length = std::min<std::uint64_t>(length, file_->size() - offset);
  ::posix_fadvise(file_->descriptor(), static_cast<off_t>(offset), static_cast<off_t>(length), POSIX_FADV_WILLNEED);
}

}  // namespace onnxq
