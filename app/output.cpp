#include "output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>

#include "onnxq/error.hpp"

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

}  // namespace

bool stdout_is_terminal() { return ::isatty(1) == 1; }
bool stdin_is_redirected() { return ::isatty(0) == 0; }

void install_output_signal_handlers() {
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGINT, remove_temps_and_exit);
  std::signal(SIGTERM, remove_temps_and_exit);
}

OutputSink OutputSink::open(const std::string& path, bool allow_terminal) {
  OutputSink sink;
  sink.path_ = path;
  if (path == "-") {
    if (!allow_terminal && stdout_is_terminal())
      fail(ErrorKind::InvalidArgument, "refusing to write binary output to a terminal; use -o FILE or a pipe");
    sink.fd_ = 1;
    return sink;
  }
  const std::filesystem::path target(path);
  std::filesystem::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  if (std::filesystem::is_directory(target)) fail(ErrorKind::Io, "output path " + path + " is a directory");
  std::string temp_name = ".";
  temp_name += target.filename().string();
  temp_name += ".onnxq-XXXXXX";
  std::string templ = (dir / temp_name).string();
  // mkstemp creates the file exclusively (O_EXCL), so a planted symlink cannot redirect it.
  int fd = ::mkstemp(templ.data());
  if (fd < 0) io_error("cannot create a temporary file in", dir.string(), errno);
  ::fchmod(fd, default_file_mode());
  sink.fd_ = fd;
  sink.temp_path_ = templ;
  register_temp(templ);
  return sink;
}

OutputSink::OutputSink(OutputSink&& other) noexcept
    : fd_(other.fd_), path_(std::move(other.path_)), temp_path_(std::move(other.temp_path_)), committed_(other.committed_) {
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
  }
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
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) io_error("cannot rename the temporary file onto", path_, errno);
  unregister_temp(temp_path_);
  temp_path_.clear();
  committed_ = true;
}

}  // namespace onnxq::cli
