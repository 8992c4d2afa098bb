#include "onnxq/io/read_all.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "onnxq/core/error.hpp"

namespace onnxq {

std::vector<std::byte> read_all(int fd, const std::string& name) {
  std::vector<std::byte> bytes;
  std::byte chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      io_error(err, "cannot read " + name + ": " + std::strerror(err));
    }
    if (n == 0) return bytes;
    bytes.insert(bytes.end(), chunk, chunk + n);
  }
}

std::string read_text_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    io_error(err, "cannot open " + path + ": " + std::strerror(err));
  }
  std::vector<std::byte> bytes;
  try {
    bytes = read_all(fd, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace onnxq
