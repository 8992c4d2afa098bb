// A remote file read from two threads at once makes its range requests side by side: the block
// cache's lock is not held across the network. The loopback server (tests/cli/range_server.py)
// holds each /together/ request until another has been in progress beside it (60 s at most), and
// logs whether one was. Nothing here depends on timing: a client that fetched one range after the
// other would keep the first request waiting the full 60 s and fail.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "onnxq/io/remote_file.hpp"

extern char** environ;

namespace onnxq {
namespace {

namespace fs = std::filesystem;

class RangeServer {
 public:
  explicit RangeServer(const fs::path& dir) : log_(dir / "server.log") {
    fs::create_directories(dir / "root");
    const std::string port_file = (dir / "port").string();
    const std::string root = (dir / "root").string(), log = log_.string();
    std::vector<std::string> args{ONNXQ_TEST_PYTHON, ONNXQ_TEST_RANGE_SERVER, root, log, port_file};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, argv[0], nullptr, nullptr, argv.data(), environ) != 0) pid_ = 0;
    // 60 s: a python3 start on a loaded machine, under a sanitizer, is slow but not that slow.
    for (int i = 0; i < 600 && port_ == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      std::ifstream(port_file) >> port_;
    }
  }
  ~RangeServer() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
  }
  int port() const { return port_; }
  std::string log() const {
    std::stringstream text;
    text << std::ifstream(log_).rdbuf();
    return text.str();
  }

 private:
  fs::path log_;
  pid_t pid_ = 0;
  int port_ = 0;
};

std::size_t count(const std::string& text, const std::string& word) {
  std::size_t n = 0;
  for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
  return n;
}

TEST(HttpSource, TwoThreadsReadingDifferentRangesFetchSideBySide) {
  for (const char* proxy : {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"})
    unsetenv(proxy);
  char dir_template[] = "/tmp/onnxq-http-source-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const fs::path dir = dir_template;
  {
    RangeServer server(dir);
    ASSERT_GT(server.port(), 0) << "the range server did not start";
    std::vector<std::byte> file(4 << 20);
    for (std::size_t i = 0; i < file.size(); ++i) file[i] = static_cast<std::byte>(i * 2654435761u >> 24);
    std::ofstream(dir / "root" / "data.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));

    // The client waits longer than the server holds a request: a lone request ends as "together":
    // false in the log, not as the client's time-out.
    const auto source = open_remote_file("http://127.0.0.1:" + std::to_string(server.port()) + "/together/data.bin",
                                         RemoteOptions{.timeout_seconds = 120});
    // Far apart, so that neither read's request (with its read-ahead) covers the other's bytes.
    const std::uint64_t offsets[2] = {1 << 20, 3 << 20};
    std::vector<std::byte> got[2];
    std::string errors[2];
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t)
      threads.emplace_back([&, t] {
        got[t].resize(1000);
        try {
          source->read(offsets[t], got[t], offsets[t] + got[t].size());
        } catch (const std::exception& e) {
          errors[t] = e.what();
        }
      });
    for (std::thread& t : threads) t.join();
    for (int t = 0; t < 2; ++t) {
      EXPECT_EQ(errors[t], "");
      EXPECT_EQ(std::memcmp(got[t].data(), file.data() + offsets[t], got[t].size()), 0) << "read " << t;
    }
    const std::string log = server.log();
    EXPECT_EQ(count(log, "\"together\": true"), 2u) << "each request met the other in progress:\n" << log;
    EXPECT_EQ(count(log, "\"together\": false"), 0u) << log;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace onnxq
