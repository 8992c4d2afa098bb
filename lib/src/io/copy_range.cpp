// The tensor-data copier: copy_file_range where it works, reads and writes where it does not.
#include "onnxq/io/copy_range.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "io/changed_size.hpp"
#include "io/read_loop.hpp"
#include "onnxq/core/error.hpp"

namespace onnxq {

namespace {

constexpr std::uint64_t kKernelChunk = std::uint64_t{1} << 30;  // copy_file_range moves at most ~2 GiB a call
constexpr std::uint64_t kShareBlock = 4096;                     // the block size of the file systems that share blocks
constexpr std::size_t kBufferChunk = std::size_t{4} << 20;

bool is_url(const std::string& path) { return path.find("://") != std::string::npos; }

// Errors that say the kernel cannot copy between these two files (not that the copy failed).
bool kernel_copy_unavailable(int err) {
  return err == EXDEV || err == EINVAL || err == ENOSYS || err == EOPNOTSUPP || err == EBADF || err == ETXTBSY ||
         err == EPERM;
}

// Moves what it can with copy_file_range; returns the bytes moved (less than `length` when the
// kernel declined, and the rest is to be copied by hand).
std::uint64_t kernel_copy(const CopySource& from, std::uint64_t src_offset, std::uint64_t length, AtomicFile& to) {
  loff_t in = static_cast<loff_t>(src_offset);
  loff_t out = static_cast<loff_t>(to.position());
  std::uint64_t done = 0;
  while (done < length) {
    std::uint64_t want = std::min(length - done, kKernelChunk);
    // A file system shares blocks only for ranges aligned alike at both ends: where the two
    // offsets agree modulo its block, the unaligned head goes first so that the rest can be shared.
    const std::uint64_t head = static_cast<std::uint64_t>(in) % kShareBlock;
    if (head != 0 && head == static_cast<std::uint64_t>(out) % kShareBlock) want = std::min(want, kShareBlock - head);
    const ssize_t n =
        ::copy_file_range(from.descriptor(), &in, to.descriptor(), &out, static_cast<std::size_t>(want), 0);
    if (n < 0) {
      const int err = errno;
      if (err == EINTR) continue;
      if (done == 0 && kernel_copy_unavailable(err)) return 0;
      io_error(err, "cannot write " + to.path() + ": " + std::strerror(err));
    }
    if (n == 0) io_error(EIO, detail::changed_size_message(from.source().name(), from.source().size()));
    done += static_cast<std::uint64_t>(n);
  }
  return done;
}

void buffered_copy(const CopySource& from, std::uint64_t src_offset, std::uint64_t length, AtomicFile& to) {
  std::vector<std::byte> buffer(static_cast<std::size_t>(std::min<std::uint64_t>(length, kBufferChunk)));
  const std::uint64_t end = src_offset + length;
  for (std::uint64_t at = src_offset; at < end;) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(end - at, buffer.size()));
    from.read(at, std::span(buffer.data(), n), end);
    to.write(buffer.data(), n);
    at += n;
  }
  from.source().check();
}

}  // namespace

CopySource::CopySource(std::shared_ptr<const ByteSource> source, const std::string& path) : source_(std::move(source)) {
  if (is_url(path)) return;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<std::uint64_t>(st.st_size) != source_->size()) {
    ::close(fd);
    return;
  }
  fd_ = fd;
}

void CopySource::read(std::uint64_t offset, std::span<std::byte> dst, std::uint64_t read_ahead_end) const {
  if (fd_ < 0) return source_->read(offset, dst, read_ahead_end);
  detail::read_fully([this](std::byte* buffer, std::size_t count,
                            std::uint64_t at) { return ::pread(fd_, buffer, count, static_cast<off_t>(at)); },
                     offset, dst, source_->name(), source_->size());
}

CopySource::~CopySource() {
  if (fd_ >= 0) ::close(fd_);
}

CopySource::CopySource(CopySource&& other) noexcept : source_(std::move(other.source_)), fd_(other.fd_) {
  other.fd_ = -1;
}

void copy_range(const CopySource& from, std::uint64_t src_offset, std::uint64_t length, AtomicFile& to,
                CopyCounts& counts) {
  if (length == 0) return;
  if (src_offset > from.source().size() || length > from.source().size() - src_offset)
    invalid_argument("copy of bytes [" + std::to_string(src_offset) + ", +" + std::to_string(length) + ") outside " +
                     from.source().name() + " (" + std::to_string(from.source().size()) + " bytes)");
  std::uint64_t moved = 0;
  if (from.descriptor() >= 0 && to.positional()) {
    moved = kernel_copy(from, src_offset, length, to);
    if (moved > 0) to.seek(to.position() + moved);
    counts.kernel += moved;
  }
  if (moved < length) {
    buffered_copy(from, src_offset + moved, length - moved, to);
    counts.buffered += length - moved;
  }
}

}  // namespace onnxq
