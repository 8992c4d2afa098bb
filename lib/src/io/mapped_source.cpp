#include "onnxq/io/mapped_source.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

#include "io/read_loop.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/io/mapping_guard.hpp"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22  // Linux 5.14
#endif

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
  // Only a hint: older kernels (EINVAL) and bytes read from a pipe are left to ordinary faults.
  if (offset >= file_->size() || length == 0) return;
  length = std::min<std::uint64_t>(length, file_->size() - offset);
  static const std::uintptr_t page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto at = reinterpret_cast<std::uintptr_t>(file_->bytes().data()) + offset;
  const std::uintptr_t begin = at & ~(page - 1);
  ::madvise(reinterpret_cast<void*>(begin), at + length - begin, MADV_POPULATE_READ);
}

}  // namespace onnxq
