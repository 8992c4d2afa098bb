#include "onnxq/io/read_all.hpp"

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

}  // namespace onnxq
