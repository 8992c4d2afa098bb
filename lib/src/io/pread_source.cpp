#include "onnxq/io/pread_source.hpp"

#include <unistd.h>

#include "io/open_file.hpp"
#include "io/read_loop.hpp"
#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"

namespace onnxq {

std::shared_ptr<const PreadSource> PreadSource::open(const std::string& path) {
  const auto [fd, st] = detail::open_for_reading(path);
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    io_error(ESPIPE, path + " is not a regular file, so it cannot be read by offset");
  }
  return std::shared_ptr<const PreadSource>(new PreadSource(fd, path, static_cast<std::uint64_t>(st.st_size)));
}

PreadSource::PreadSource(int fd, std::string path, std::uint64_t size) : fd_(fd), path_(std::move(path)), size_(size) {}

PreadSource::~PreadSource() { ::close(fd_); }

void PreadSource::read(std::uint64_t offset, std::span<std::byte> dst, std::uint64_t) const {
  const auto end = checked_add(offset, dst.size());
  if (!end || *end > size_)
    invalid_argument("bytes [" + std::to_string(offset) + ", +" + std::to_string(dst.size()) + ") lie outside " +
                     path_);
  detail::read_fully([this](std::byte* buffer, std::size_t count,
                            std::uint64_t at) { return ::pread(fd_, buffer, count, static_cast<off_t>(at)); },
                     offset, dst, path_, size_);
}

}  // namespace onnxq
