#include "onnxq/io/atomic_file.hpp"

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
#include <random>

#include "onnxq/core/error.hpp"
#include "onnxq/io/mapping_guard.hpp"
#include "onnxq/io/same_file.hpp"

namespace onnxq {
namespace {

// Live named temporaries, for remove_live_temporaries(). Fixed storage: a signal handler may not
// allocate or lock.
constexpr std::size_t kMaxLiveTemps = 64;
constexpr std::size_t kMaxPathBytes = 4096;
std::array<std::array<char, kMaxPathBytes>, kMaxLiveTemps> g_temp_paths{};
std::array<std::atomic<bool>, kMaxLiveTemps> g_temp_live{};

void register_temp(const std::string& path) {
  if (path.size() >= kMaxPathBytes) return;
  for (std::size_t i = 0; i < kMaxLiveTemps; ++i) {
    if (!g_temp_live[i].load()) {
      std::memcpy(g_temp_paths[i].data(), path.c_str(), path.size() + 1);
      g_temp_live[i].store(true);
      return;
    }
  }
}

void unregister_temp(const std::string& path) {
  for (std::size_t i = 0; i < kMaxLiveTemps; ++i)
    if (g_temp_live[i].load() && path == g_temp_paths[i].data()) g_temp_live[i].store(false);
}

// The signals a front end may catch to call remove_live_temporaries() wait while a temporary is
// created and listed.
class TempSignalsBlocked {
 public:
  TempSignalsBlocked() {
    sigset_t block;
    sigemptyset(&block);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&block, sig);
    pthread_sigmask(SIG_BLOCK, &block, &old_);
  }
  ~TempSignalsBlocked() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  TempSignalsBlocked(const TempSignalsBlocked&) = delete;
  TempSignalsBlocked& operator=(const TempSignalsBlocked&) = delete;

 private:
  sigset_t old_;
};

// ".NAME.onnxq-" beside the target; mkstemp or random_suffix add six random characters.
std::string temp_prefix(const std::string& target) {
  const std::filesystem::path t(target);
  std::string name = ".";
  name += t.filename().string();
  name += ".onnxq-";
  return (t.parent_path() / name).string();
}

std::string random_suffix() {
  static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  thread_local std::mt19937_64 rng(std::random_device{}());
  std::string s;
  for (int i = 0; i < 6; ++i) s += chars[rng() % (sizeof chars - 1)];
  return s;
}

std::string directory_of(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  return dir.empty() ? "." : dir.string();
}

mode_t default_file_mode() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

[[noreturn]] void fail_io(const std::string& what, const std::string& path, int err) {
  io_error(err, what + " " + path + ": " + std::strerror(err));
}

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

}  // namespace

void remove_live_temporaries() noexcept {
  for (std::size_t i = 0; i < kMaxLiveTemps; ++i)
    if (g_temp_live[i].load()) ::unlink(g_temp_paths[i].data());
}

AtomicFile AtomicFile::create(const std::string& path, Options options) {
  AtomicFile file;
  file.path_ = path;
  file.options_ = options;
  const std::string dir = directory_of(path);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) fail(ErrorKind::Io, "output path " + path + " is a directory");
    if (S_ISREG(st.st_mode) && !options.replaces_input) refuse_output_onto_input(path);
    if (!S_ISREG(st.st_mode)) {
      const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
      if (fd < 0) fail_io("cannot open", path, errno);
      file.kind_ = Kind::InPlace;
      file.fd_ = fd;
      return file;
    }
  }
  // An unnamed file: nothing to clean up after any failure, kill -9 included. The kernel applies
  // the umask to the mode.
  if (options.unnamed) {
    const int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (fd >= 0) {
      file.kind_ = Kind::Unnamed;
      file.fd_ = fd;
      return file;
    }
    // EOPNOTSUPP: a file system without unnamed files; EISDIR, EINVAL: a kernel without O_TMPFILE.
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) fail_io("cannot create a file in", dir, errno);
    file.unnamed_errno_ = errno;
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
  if (fd < 0) fail_io("cannot create a temporary file in", dir, mkstemp_errno);
  ::fchmod(fd, default_file_mode());
  file.kind_ = Kind::NamedTemporary;
  file.fd_ = fd;
  file.temp_path_ = templ;
  return file;
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : kind_(other.kind_),
      options_(other.options_),
      fd_(other.fd_),
      path_(std::move(other.path_)),
      temp_path_(std::move(other.temp_path_)),
      done_(other.done_),
      position_(other.position_),
      unnamed_errno_(other.unnamed_errno_) {
  other.fd_ = -1;
  other.temp_path_.clear();
  other.done_ = true;
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard() noexcept {
  if (done_) return;
  done_ = true;
  if (fd_ >= 0) ::close(fd_);  // an unnamed file vanishes here
  fd_ = -1;
  if (!temp_path_.empty()) {
    ::unlink(temp_path_.c_str());  // unlink never follows a symlink
    forget_temporary();
  }
}

void AtomicFile::forget_temporary() noexcept {
  unregister_temp(temp_path_);
  temp_path_.clear();
}

void AtomicFile::write(const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd_, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_io("cannot write", path_, errno);
    }
    p += n;
    size -= static_cast<std::size_t>(n);
    position_ += static_cast<std::uint64_t>(n);
  }
}

void AtomicFile::write_at(std::uint64_t offset, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::pwrite(fd_, p, size, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_io("cannot write", path_, errno);
    }
    p += n;
    offset += static_cast<std::uint64_t>(n);
    size -= static_cast<std::size_t>(n);
  }
}

void AtomicFile::seek(std::uint64_t position) {
  position_ = position;
  if (::lseek(fd_, static_cast<off_t>(position_), SEEK_SET) < 0) fail_io("cannot seek in", path_, errno);
}

// Why: on ext4, writes into blocks allocated ahead skip the per-page delayed allocation.
void AtomicFile::reserve(std::uint64_t offset, std::uint64_t bytes) {
  if (!positional() || bytes == 0) return;
  if (::fallocate(fd_, 0, static_cast<off_t>(offset), static_cast<off_t>(bytes)) == 0) return;
  if (errno == EOPNOTSUPP || errno == ENOSYS || errno == EINVAL || errno == EINTR) return;  // write as usual
  fail_io("cannot write", path_, errno);
}

void AtomicFile::sync_data() {
  if (!options_.durable || fd_ < 0) return;
  // A pipe or a character device has nothing to sync (EINVAL, EROFS).
  if (::fsync(fd_) != 0 && !(kind_ == Kind::InPlace && (errno == EINVAL || errno == EROFS)))
    fail_io("cannot write", path_, errno);
}

void AtomicFile::close_data() {
  sync_data();
  const int closed = ::close(fd_);
  const int close_errno = errno;
  fd_ = -1;
  if (closed != 0) fail_io("cannot write", path_, close_errno);
}

void AtomicFile::sync_directory() {
  if (!options_.durable) return;
  const std::string dir = directory_of(path_);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail_io("cannot sync the directory", dir, errno);
  const int synced = ::fsync(fd);
  const int sync_errno = errno;
  ::close(fd);
  if (synced != 0) fail_io("cannot sync the directory", dir, sync_errno);
}

// Closed, under a temporary name, the target untouched. An unnamed file whose target does not
// exist stays unnamed and open: swap_in() links the target's name itself, so that no temporary
// name exists for kill -9 to leave behind.
void AtomicFile::stage() {
  if (kind_ != Kind::Unnamed) return close_data();  // a named temporary has its name; in place needs none
  sync_data();
  struct stat st {};
  if (::lstat(path_.c_str(), &st) != 0 && errno == ENOENT) return;
  link_temporary_name();
}

// The unnamed file gets a temporary name, linked exclusively (a planted name is skipped), and is closed.
void AtomicFile::link_temporary_name() {
  const std::string prefix = temp_prefix(path_);
  for (int attempt = 0; temp_path_.empty(); ++attempt) {
    const std::string name = prefix + random_suffix();
    TempSignalsBlocked blocked;
    const int err = link_unnamed_file(fd_, name);
    if (err == 0) {
      register_temp(name);
      temp_path_ = name;
    } else if (err != EEXIST || attempt == 100) {
      fail_io("cannot create a file in", directory_of(path_), err);
    }
  }
  const int closed = ::close(fd_);
  const int close_errno = errno;
  fd_ = -1;
  if (closed != 0) fail_io("cannot write", path_, close_errno);
}

// Replacing an existing regular file: swap the two names atomically (the target names a whole
// file throughout), leaving the old file under the temporary name until drop_replaced(). Why not
// rename(): when rename() replaces a file, ext4 writes the new file's delayed-allocation pages
// back on the spot (auto_da_alloc), which can take longer than the writes themselves. Anything
// else (no target, a symlink, no exchange on this file system): rename().
bool AtomicFile::swap_in() {
  if (kind_ == Kind::Unnamed && fd_ >= 0) {  // staged with no target: link the name directly
    const int err = link_unnamed_file(fd_, path_);
    if (err == 0) {
      const int closed = ::close(fd_);
      const int close_errno = errno;
      fd_ = -1;
      if (closed != 0) {
        ::unlink(path_.c_str());  // it did not exist before: back to that
        fail_io("cannot write", path_, close_errno);
      }
      return false;
    }
    if (err != EEXIST) fail_io("cannot create", path_, err);
    link_temporary_name();  // the name appeared since: replace it as any target
  }
  struct stat st {};
  if (::lstat(path_.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
      ::renameat2(AT_FDCWD, temp_path_.c_str(), AT_FDCWD, path_.c_str(), RENAME_EXCHANGE) == 0)
    return true;
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) fail_io("cannot rename the temporary file onto", path_, errno);
  forget_temporary();
  return false;
}

void AtomicFile::undo_swap(bool exchanged) noexcept {
  if (exchanged) {
    ::renameat2(AT_FDCWD, temp_path_.c_str(), AT_FDCWD, path_.c_str(), RENAME_EXCHANGE);
  } else {
    // The name was new (or a symlink's, which the rename replaced and cannot be restored).
    ::unlink(path_.c_str());
  }
}

void AtomicFile::drop_replaced(bool exchanged) {
  if (!exchanged) return;
  if (::unlink(temp_path_.c_str()) != 0) {
    const int err = errno;
    const std::string left = temp_path_;
    forget_temporary();
    fail_io("cannot remove the replaced file, now named", left, err);
  }
  forget_temporary();
}

void AtomicFile::commit() {
  if (done_) return;
  // A mapped input that shrank was read as zeros: what was written from it is not the input's.
  if (const auto change = mapped_file_change()) fail(ErrorKind::Io, *change);
  if (kind_ == Kind::InPlace) {
    close_data();
  } else {
    stage();
    drop_replaced(swap_in());
    sync_directory();
  }
  done_ = true;
}

}  // namespace onnxq
