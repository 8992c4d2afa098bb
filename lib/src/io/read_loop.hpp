// The loop under PreadSource::read: a read may return fewer bytes than asked (a signal, a
// network file system) and is repeated; one that returns none before the end means the file
// shrank. Apart from PreadSource so that tests can drive it with a fake read.
#pragma once

#include <sys/types.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "io/changed_size.hpp"
#include "onnxq/core/error.hpp"

namespace onnxq::detail {

// `read_at(buffer, count, offset)` behaves as pread(2). Fills all of `dst` from `offset`, or
// throws Error(Io) naming `name` (a file of `size_then` bytes when it was opened).
template <class ReadAt>
void read_fully(ReadAt&& read_at, std::uint64_t offset, std::span<std::byte> dst, const std::string& name,
                std::uint64_t size_then) {
  std::size_t done = 0;
  while (done < dst.size()) {
    const ssize_t n = read_at(dst.data() + done, dst.size() - done, offset + done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      io_error(err, "cannot read " + name + ": " + std::strerror(err));
    }
    if (n == 0) fail(ErrorKind::Io, changed_size_message(name, size_then));
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace onnxq::detail
