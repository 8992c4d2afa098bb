// PreadSource's read loop driven by a fake pread: short reads and interruptions are read on,
// a read that ends early is the file-changed error, a failed read names the file.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "io/read_loop.hpp"
#include "onnxq/core/error.hpp"

namespace onnxq {
namespace {

std::vector<std::byte> numbered(std::size_t n) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>(i * 7 + 1);
  return v;
}

// A file of `file` bytes that hands out at most `most` bytes per call, and fails with EINTR on
// every third call.
struct StingyRead {
  const std::vector<std::byte>& file;
  std::size_t most;
  int calls = 0;
  ssize_t operator()(std::byte* buffer, std::size_t count, std::uint64_t offset) {
    if (++calls % 3 == 0) {
      errno = EINTR;
      return -1;
    }
    if (offset >= file.size()) return 0;
    const std::size_t n = std::min({count, most, file.size() - static_cast<std::size_t>(offset)});
    std::memcpy(buffer, file.data() + offset, n);
    return static_cast<ssize_t>(n);
  }
};

TEST(ReadLoop, ShortAndInterruptedReadsGiveEveryByte) {
  const auto file = numbered(1000);
  std::vector<std::byte> got(600);
  StingyRead read{file, 7};
  detail::read_fully(read, 300, got, "f.gguf", file.size());
  EXPECT_EQ(std::memcmp(got.data(), file.data() + 300, got.size()), 0);
  EXPECT_GT(read.calls, 600 / 7) << "the fake should have been called once per short read at least";
}

TEST(ReadLoop, AFileThatEndsEarlyIsAnIoErrorNamingIt) {
  const auto shrunk = numbered(500);  // 1000 bytes when opened
  std::vector<std::byte> got(600);
  StingyRead read{shrunk, 64};
  try {
    detail::read_fully(read, 300, got, "/nonexistent/f.gguf", 1000);
    FAIL() << "read past the end of a file that shrank";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_STREQ(e.what(), "/nonexistent/f.gguf changed size while it was being read (1000 bytes when opened)");
  }
}

TEST(ReadLoop, AFailedReadIsAnIoErrorWithTheSystemsReason) {
  std::vector<std::byte> got(10);
  auto failing = [](std::byte*, std::size_t, std::uint64_t) -> ssize_t {
    errno = ENOSPC;
    return -1;
  };
  try {
    detail::read_fully(failing, 0, got, "f.gguf", 10);
    FAIL() << "a failed read went unnoticed";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_EQ(e.system_error(), ENOSPC);
    EXPECT_EQ(std::string(e.what()), std::string("cannot read f.gguf: ") + std::strerror(ENOSPC));
  }
}

}  // namespace
}  // namespace onnxq
