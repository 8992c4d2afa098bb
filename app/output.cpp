#include "output.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <vector>

#include "onnxq/core/error.hpp"
#include "onnxq/core/mapped_file.hpp"

namespace onnxq::cli {
namespace {

// Live temporaries, for the signal handler. Fixed storage: a handler may not allocate.
constexpr std::size_t kMaxLiveTemps = 64;
constexpr std::size_t kMaxPathBytes = 4096;
std::array<std::array<char, kMaxPathBytes>, kMaxLiveTemps> g_temp_paths{};
std::array<std::atomic<bool>, kMaxLiveTemps> g_temp_live{};

int register_temp(const std::string& path) {
  if (path.size() >= kMaxPathBytes) return -1;
  for (std::size_t i = 0; i < kMaxLiveTemps; ++i) {
    if (!g_temp_live[i].load()) {
      std::memcpy(g_temp_paths[i].data(), path.c_str(), path.size() + 1);
      g_temp_live[i].store(true);
      return static_cast<int>(i);
    }
  }
  return -1;
}

void unregister_temp(const std::string& path) {
  for (std::size_t i = 0; i < kMaxLiveTemps; ++i)
    if (g_temp_live[i].load() && path == g_temp_paths[i].data()) g_temp_live[i].store(false);
}

extern "C" void remove_temps_and_exit(int sig) {
  for (std::size_t i = 0; i < kMaxLiveTemps; ++i)
    if (g_temp_live[i].load()) ::unlink(g_temp_paths[i].data());
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

mode_t default_file_mode() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

[[noreturn]] void io_error(const std::string& what, const std::string& path, int err) {
  fail(ErrorKind::Io, what + " " + path + ": " + std::strerror(err));
}

struct FileId {
  dev_t dev;
  ino_t ino;
  bool operator==(const FileId&) const = default;
};

std::mutex g_inputs_mutex;
std::vector<FileId> g_noted_inputs;

// Files this process is reading: noted inputs, stdin and every other open descriptor, and every file
// the library holds mapped (a GGUF or .npy stays mapped while its tensors are in use, with its
// descriptor already closed). The library keeps that list itself: reading /proc/self/maps for
// every output took a fifth of the time of writing a small file.
bool is_process_input(const FileId& id) {
  {
    std::lock_guard lock(g_inputs_mutex);
    for (const FileId& f : g_noted_inputs)
      if (f == id) return true;
  }
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    const std::string fd_name = entry.path().filename().string();
    if (fd_name == "1" || fd_name == "2") continue;  // stdout and stderr are outputs
    struct stat st {};
    if (::stat(entry.path().c_str(), &st) == 0 && S_ISREG(st.st_mode) && FileId{st.st_dev, st.st_ino} == id)
      return true;
  }
  return MappedFile::is_open(id.dev, id.ino);
}

void refuse_if_input(const struct stat& st, const std::string& what) {
  if (S_ISREG(st.st_mode) && is_process_input({st.st_dev, st.st_ino}))
    fail(ErrorKind::InvalidArgument, "refusing to write to " + what + ": it is one of the input files");
}

}  // namespace

void note_input_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;  // the reader reports a missing file itself
  std::lock_guard lock(g_inputs_mutex);
  g_noted_inputs.push_back({st.st_dev, st.st_ino});
}

bool stdout_is_terminal() { return ::isatty(1) == 1; }
bool stdin_is_redirected() { return ::isatty(0) == 0; }

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
    if (::fstat(1, &st) == 0) refuse_if_input(st, "standard output");
    sink.fd_ = 1;
    return sink;
  }
  const std::filesystem::path target(path);
  std::filesystem::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) fail(ErrorKind::Io, "output path " + path + " is a directory");
    refuse_if_input(st, path);
    if (!S_ISREG(st.st_mode)) {
      // A device or FIFO: write in place; a rename would replace the node itself.
      int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
      if (fd < 0) io_error("cannot open", path, errno);
      if (!allow_terminal && ::isatty(fd)) {
        ::close(fd);
        fail(ErrorKind::InvalidArgument, "refusing to write binary output to the terminal " + path);
      }
      sink.fd_ = fd;
      sink.direct_ = true;
      return sink;
    }
  }
  std::string temp_name = ".";
  temp_name += target.filename().string();
  temp_name += ".onnxq-XXXXXX";
  std::string templ = (dir / temp_name).string();
  // mkstemp creates the file exclusively (O_EXCL), so a planted symlink cannot redirect it.
  // SIGINT/SIGTERM/SIGHUP wait until the file is registered for their handler to remove.
  sigset_t block, old;
  sigemptyset(&block);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&block, sig);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  int fd = ::mkstemp(templ.data());
  const int mkstemp_errno = errno;
  if (fd >= 0) register_temp(templ);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (fd < 0) io_error("cannot create a temporary file in", dir.string(), mkstemp_errno);
  ::fchmod(fd, default_file_mode());
  sink.fd_ = fd;
  sink.temp_path_ = templ;
  return sink;
}

OutputSink::OutputSink(OutputSink&& other) noexcept
    : fd_(other.fd_),
      path_(std::move(other.path_)),
      temp_path_(std::move(other.temp_path_)),
      direct_(other.direct_),
      committed_(other.committed_),
      position_(other.position_) {
  other.fd_ = -1;
  other.temp_path_.clear();
  other.committed_ = true;
}

OutputSink::~OutputSink() {
  if (!committed_) discard();
}

void OutputSink::discard() noexcept {
  if (fd_ > 1) ::close(fd_);
  fd_ = -1;
  if (!temp_path_.empty()) {
    ::unlink(temp_path_.c_str());  // unlink never follows a symlink
    unregister_temp(temp_path_);
    temp_path_.clear();
  }
}

void OutputSink::write(const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd_, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EPIPE && fd_ == 1) throw BrokenPipe{};
      io_error("cannot write", fd_ == 1 ? std::string("standard output") : path_, errno);
    }
    p += n;
    size -= static_cast<std::size_t>(n);
    position_ += static_cast<std::uint64_t>(n);
  }
}

void OutputSink::write_at(std::uint64_t offset, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  std::uint64_t at = position_ + offset;
  while (size > 0) {
    ssize_t n = ::pwrite(fd_, p, size, static_cast<off_t>(at));
    if (n < 0) {
      if (errno == EINTR) continue;
      io_error("cannot write", path_, errno);
    }
    p += n;
    at += static_cast<std::uint64_t>(n);
    size -= static_cast<std::size_t>(n);
  }
}

// Why: on ext4, writes into blocks allocated ahead skip the per-page delayed allocation, which
// took about a quarter of their time (64 MiB in 1 MiB writes, measured here); tmpfs is unchanged.
void OutputSink::reserve(std::uint64_t bytes) {
  if (temp_path_.empty() || bytes == 0) return;
  if (::fallocate(fd_, 0, static_cast<off_t>(position_), static_cast<off_t>(bytes)) == 0) return;
  if (errno == EOPNOTSUPP || errno == ENOSYS || errno == EINVAL || errno == EINTR) return;  // write as usual
  io_error("cannot write", path_, errno);
}

void OutputSink::advance(std::uint64_t bytes) {
  position_ += bytes;
  if (::lseek(fd_, static_cast<off_t>(position_), SEEK_SET) < 0) io_error("cannot seek in", path_, errno);
}

// Replacing an existing regular file: swap the two names atomically (the target names a whole
// file throughout, the old one and then the new one, as with rename()), then remove the old file,
// which now has the temporary's name. Why not rename(): when rename() replaces a file, ext4
// starts writing the new file's delayed-allocation pages back on the spot (auto_da_alloc), which
// took longer than the writes themselves; the page cache writes them back later either way
// (neither way waits for the disk: onnxq makes no crash-durability promise, as it calls no fsync).
// False when the target is not an existing regular file or the file system cannot exchange names.
bool OutputSink::exchange_with_target() {
  struct stat st {};
  if (::lstat(path_.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if (::renameat2(AT_FDCWD, temp_path_.c_str(), AT_FDCWD, path_.c_str(), RENAME_EXCHANGE) != 0) return false;
  if (::unlink(temp_path_.c_str()) != 0) io_error("cannot remove the replaced file, now named", temp_path_, errno);
  return true;
}

void OutputSink::commit() {
  if (committed_) return;
  if (fd_ == 1) {
    committed_ = true;
    return;
  }
  if (::close(fd_) != 0) {
    fd_ = -1;
    io_error("cannot write", path_, errno);
  }
  fd_ = -1;
  if (direct_) {
    committed_ = true;
    return;
  }
  if (!exchange_with_target()) {
    if (::rename(temp_path_.c_str(), path_.c_str()) != 0)
      io_error("cannot rename the temporary file onto", path_, errno);
  }
  unregister_temp(temp_path_);
  temp_path_.clear();
  committed_ = true;
}

}  // namespace onnxq::cli
