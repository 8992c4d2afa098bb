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
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>
#include <string_view>

#include "exit_codes.hpp"
#include "input_files.hpp"
#include "log.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/core/mapping_guard.hpp"

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

// SIGINT/SIGTERM/SIGHUP wait while a named temporary is created and listed for their handler.
class TempSignalsBlocked {
 public:
  TempSignalsBlocked() {
    sigset_t block;
    sigemptyset(&block);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&block, sig);
    pthread_sigmask(SIG_BLOCK, &block, &old_);
  }
  ~TempSignalsBlocked() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

 private:
  sigset_t old_;
};

// ".NAME.onnxq-" beside the target; mkstemp or temp_link_name add six random characters.
std::string temp_prefix(const std::string& target) {
  const std::filesystem::path t(target);
  std::string name = ".";
  name += t.filename().string();
  name += ".onnxq-";
  return (t.parent_path() / name).string();
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

mode_t default_file_mode() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

[[noreturn]] void io_error(const std::string& what, const std::string& path, int err) {
  fail(ErrorKind::Io, what + " " + path + ": " + std::strerror(err));
}

void refuse_if_input(const struct stat& st, const std::string& what) {
  if (S_ISREG(st.st_mode) && is_process_input(st.st_dev, st.st_ino))
    fail(ErrorKind::InvalidArgument, "refusing to write to " + what + ": it is one of the input files");
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
    if (::fstat(1, &st) == 0) refuse_if_input(st, "standard output");
    sink.kind_ = Kind::Stdout;
    sink.fd_ = 1;
    return sink;
  }
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
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
      sink.kind_ = Kind::Direct;
      sink.fd_ = fd;
      return sink;
    }
  }
  // An unnamed file in the target's directory: nothing to clean up after any failure, kill -9
  // included. The kernel applies the umask to the mode.
  {
    errno = EOPNOTSUPP;
    const int fd = unnamed_files_disabled() ? -1 : ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (fd >= 0) {
      sink.kind_ = Kind::Unnamed;
      sink.fd_ = fd;
      return sink;
    }
    // EOPNOTSUPP: a file system without unnamed files; EISDIR, EINVAL: a kernel without O_TMPFILE.
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
      io_error("cannot create a file in", dir.string(), errno);
    static std::once_flag logged;
    const int err = errno;
    std::call_once(logged, [&] {
      log::info(
          "{}: no unnamed files here (O_TMPFILE: {}); writing through a named temporary, which only "
          "kill -9 would leave behind",
          dir.string(), std::strerror(err));
    });
  }
  // mkstemp creates the file exclusively (O_EXCL), so a planted symlink cannot redirect it.
  std::string templ = temp_prefix(path) + "XXXXXX";
  int fd = -1;
  int mkstemp_errno = 0;
  {
    TempSignalsBlocked blocked;
    fd = ::mkstemp(templ.data());
    mkstemp_errno = errno;
    if (fd >= 0) register_temp(templ);
  }
  if (fd < 0) io_error("cannot create a temporary file in", dir.string(), mkstemp_errno);
  ::fchmod(fd, default_file_mode());
  sink.kind_ = Kind::NamedTemporary;
  sink.fd_ = fd;
  sink.temp_path_ = templ;
  return sink;
}

OutputSink::OutputSink(OutputSink&& other) noexcept
    : kind_(other.kind_),
      fd_(other.fd_),
      path_(std::move(other.path_)),
      temp_path_(std::move(other.temp_path_)),
      committed_(other.committed_),
      position_(other.position_) {
  other.fd_ = -1;
  other.temp_path_.clear();
  other.committed_ = true;
}

OutputSink::~OutputSink() {
  if (!committed_) discard();
}

const std::string& OutputSink::shown_path() const {
  static const std::string standard_output = "standard output";
  return kind_ == Kind::Stdout ? standard_output : path_;
}

void OutputSink::discard() noexcept {
  if (kind_ != Kind::Stdout && fd_ >= 0) ::close(fd_);  // an unnamed file vanishes here
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
      if (errno == EPIPE && kind_ == Kind::Stdout) throw BrokenPipe{};
      io_error("cannot write", shown_path(), errno);
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
  if (!positional() || bytes == 0) return;
  if (::fallocate(fd_, 0, static_cast<off_t>(position_), static_cast<off_t>(bytes)) == 0) return;
  if (errno == EOPNOTSUPP || errno == ENOSYS || errno == EINVAL || errno == EINTR) return;  // write as usual
  io_error("cannot write", path_, errno);
}

void OutputSink::advance(std::uint64_t bytes) {
  position_ += bytes;
  if (::lseek(fd_, static_cast<off_t>(position_), SEEK_SET) < 0) io_error("cannot seek in", path_, errno);
}

namespace {

// Gives the unnamed file open as `fd` the name `name`; 0 or the errno. linkat never replaces an
// existing name (EEXIST).
int link_unnamed_file(int fd, const std::string& name) {
  char proc_path[40];
  std::snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", fd);
  if (::linkat(AT_FDCWD, proc_path, AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0) return 0;
  int err = errno;
  if (err == ENOENT && ::access("/proc/self/fd", F_OK) != 0) {
    // No /proc: linking the descriptor itself needs CAP_DAC_READ_SEARCH.
    if (::linkat(fd, "", AT_FDCWD, name.c_str(), AT_EMPTY_PATH) == 0) return 0;
    err = errno;
  }
  return err;
}

std::string random_suffix() {
  static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  static std::mt19937_64 rng(std::random_device{}());
  std::string s;
  for (int i = 0; i < 6; ++i) s += chars[rng() % (sizeof chars - 1)];
  return s;
}

}  // namespace

// The unnamed file gets the target's name directly when the target does not exist; to replace a
// file it is first linked to a temporary name (exclusively: a planted name is skipped), which the
// exchange then moves onto the target.
void OutputSink::name_unnamed_file() {
  struct stat st {};
  if (::lstat(path_.c_str(), &st) != 0 && errno == ENOENT) {
    const int err = link_unnamed_file(fd_, path_);
    if (err == 0) {
      const int closed = ::close(fd_);
      const int close_errno = errno;
      fd_ = -1;
      if (closed != 0) {
        ::unlink(path_.c_str());  // it did not exist before: back to that
        io_error("cannot write", path_, close_errno);
      }
      return;
    }
    if (err != EEXIST) io_error("cannot create", path_, err);
  }
  const std::string prefix = temp_prefix(path_);
  for (int attempt = 0; temp_path_.empty(); ++attempt) {
    const std::string name = prefix + random_suffix();
    TempSignalsBlocked blocked;
    const int err = link_unnamed_file(fd_, name);
    if (err == 0) {
      register_temp(name);
      temp_path_ = name;
    } else if (err != EEXIST || attempt == 100) {
      io_error("cannot create a file in", std::filesystem::path(path_).parent_path().string(), err);
    }
  }
  const int closed = ::close(fd_);
  const int close_errno = errno;
  fd_ = -1;
  if (closed != 0) io_error("cannot write", path_, close_errno);
  replace_target_with(temp_path_);
}

// Replacing an existing regular file: swap the two names atomically (the target names a whole
// file throughout, the old one and then the new one, as with rename()), then remove the old file,
// which now has the temporary's name. Why not rename(): when rename() replaces a file, ext4
// starts writing the new file's delayed-allocation pages back on the spot (auto_da_alloc), which
// took longer than the writes themselves; the page cache writes them back later either way
// (neither way waits for the disk: onnxq makes no crash-durability promise, as it calls no fsync).
// Anything else (no target, a symlink, no exchange on this file system): rename().
void OutputSink::replace_target_with(const std::string& temp_path) {
  struct stat st {};
  if (::lstat(path_.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
      ::renameat2(AT_FDCWD, temp_path.c_str(), AT_FDCWD, path_.c_str(), RENAME_EXCHANGE) == 0) {
    if (::unlink(temp_path.c_str()) != 0) io_error("cannot remove the replaced file, now named", temp_path, errno);
  } else if (::rename(temp_path.c_str(), path_.c_str()) != 0) {
    io_error("cannot rename the temporary file onto", path_, errno);
  }
  unregister_temp(temp_path);
  temp_path_.clear();
}

void OutputSink::commit() {
  if (committed_) return;
  // A mapped input that shrank was read as zeros: what was written from it is not the input's.
  if (const auto change = mapped_file_change()) fail(ErrorKind::Io, *change);
  switch (kind_) {
    case Kind::Stdout: break;
    case Kind::Direct: {
      const int closed = ::close(fd_);
      fd_ = -1;
      if (closed != 0) io_error("cannot write", path_, errno);
      break;
    }
    case Kind::Unnamed: name_unnamed_file(); break;
    case Kind::NamedTemporary: {
      const int closed = ::close(fd_);
      fd_ = -1;
      if (closed != 0) io_error("cannot write", path_, errno);
      replace_target_with(temp_path_);
      break;
    }
  }
  committed_ = true;
}

}  // namespace onnxq::cli
