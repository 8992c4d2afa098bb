#include "output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string_view>

#include "exit_codes.hpp"
#include "log.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/io/mapping_guard.hpp"
#include "onnxq/io/same_file.hpp"

namespace onnxq::cli {
namespace {

extern "C" void remove_temps_and_exit(int sig) {
  remove_live_temporaries();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// A test hook: behave as on a file system without unnamed files, so that the tests reach the
// named-temporary path on file systems that have them.
bool unnamed_files_disabled() {
  static const bool disabled = [] {
    const char* v = std::getenv("ONNXQ_TEST_NO_TMPFILE");
    return v && *v && std::string_view(v) != "0";
  }();
  return disabled;
}

// err: why there is no unnamed file (EOPNOTSUPP under the test hook, as on such a file system).
void note_no_unnamed_files(const std::string& path, int err) {
  static std::once_flag logged;
  std::call_once(logged, [&] {
    std::string dir = std::filesystem::path(path).parent_path().string();
    if (dir.empty()) dir = ".";
    log::info(
        "{}: no unnamed files here (O_TMPFILE: {}); writing through a named temporary, which only "
        "kill -9 would leave behind",
        dir, std::strerror(err));
  });
}

}  // namespace

bool stdout_is_terminal() { return ::isatty(1) == 1; }
bool stdin_is_redirected() { return ::isatty(0) == 0; }

void make_standard_descriptors_valid() {
  // What each closed descriptor gets: reads of stdin and writes to stdout still fail (EBADF),
  // as on the closed descriptor; stderr's messages go nowhere, as the user chose.
  constexpr int kNullFlags[3] = {O_WRONLY, O_RDONLY, O_WRONLY};
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int null_fd = ::open("/dev/null", kNullFlags[fd]);  // the lowest free number: fd itself
    if (null_fd >= 0 && null_fd != fd) {
      ::dup2(null_fd, fd);
      ::close(null_fd);
    }
    if (::fcntl(fd, F_GETFD) == -1) {
      // Without /dev/null a file opened later could take the number of a standard stream.
      static const char message[] = "onnxq: error: descriptor 0, 1 or 2 is closed and /dev/null cannot be opened\n";
      if (::write(2, message, sizeof message - 1) < 0) {
      }
      std::_Exit(kExitIo);
    }
  }
}

void install_output_signal_handlers() {
  std::signal(SIGPIPE, SIG_IGN);
  // A file-size limit (ulimit -f) then fails the write with EFBIG, a clean I/O error.
  std::signal(SIGXFSZ, SIG_IGN);
  std::signal(SIGINT, remove_temps_and_exit);
  std::signal(SIGTERM, remove_temps_and_exit);
  std::signal(SIGHUP, remove_temps_and_exit);
}

OutputSink OutputSink::open(const std::string& path, bool allow_terminal) {
  OutputSink sink;
  sink.path_ = path;
  if (path == "-") {
    if (!allow_terminal && stdout_is_terminal())
      fail(ErrorKind::InvalidArgument, "refusing to write binary output to a terminal; use -o FILE or a pipe");
    struct stat st {};
    if (::fstat(1, &st) == 0 && S_ISREG(st.st_mode) && is_process_input(st.st_dev, st.st_ino))
      fail(ErrorKind::InvalidArgument, "refusing to write to standard output: it is one of the input files");
    return sink;
  }
  AtomicFile file = create_output_file(path, AtomicFile::Options{});
  if (file.kind() == AtomicFile::Kind::InPlace && !allow_terminal && ::isatty(file.descriptor()))
    fail(ErrorKind::InvalidArgument, "refusing to write binary output to the terminal " + path);
  sink.file_.emplace(std::move(file));
  return sink;
}

AtomicFile create_output_file(const std::string& path, AtomicFile::Options options) {
  options.unnamed = options.unnamed && !unnamed_files_disabled();
  AtomicFile file = AtomicFile::create(path, options);
  if (file.kind() == AtomicFile::Kind::NamedTemporary)
    note_no_unnamed_files(path, options.unnamed ? file.unnamed_unavailable_errno() : EOPNOTSUPP);
  return file;
}

void OutputSink::write(const void* data, std::size_t size) {
  if (file_) return file_->write(data, size);
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(1, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EPIPE) throw BrokenPipe{};
      fail(ErrorKind::Io, std::string("cannot write standard output: ") + std::strerror(errno));
    }
    p += n;
    size -= static_cast<std::size_t>(n);
  }
}

void OutputSink::write_at(std::uint64_t offset, const void* data, std::size_t size) {
  if (!positional()) return StreamSink::write_at(offset, data, size);
  file_->write_at(file_->position() + offset, data, size);
}

void OutputSink::advance(std::uint64_t bytes) {
  if (!positional()) return StreamSink::advance(bytes);
  file_->seek(file_->position() + bytes);
}

void OutputSink::reserve(std::uint64_t bytes) {
  if (positional()) file_->reserve(file_->position(), bytes);
}

void OutputSink::commit() {
  if (committed_) return;
  if (file_) {
    file_->commit();
  } else if (const auto change = mapped_file_change()) {
    // A mapped input that shrank was read as zeros: what was written from it is not the input's.
    fail(ErrorKind::Io, *change);
  }
  committed_ = true;
}

}  // namespace onnxq::cli
