// read_all: a stream read to its end in pieces, and a read that fails named; read_text_file: a
// file whole, its bytes as they are, and a file that cannot be opened or read named.
#include "onnxq/io/read_all.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "onnxq/core/error.hpp"
#include "scratch_dir.hpp"

namespace onnxq {
namespace {

std::vector<std::byte> pattern(std::size_t size) {
  std::vector<std::byte> bytes(size);
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<std::byte>(i * 131 % 251);
  return bytes;
}

TEST(ReadAll, ReadsAFileLongerThanOneReadToItsEnd) {
  const std::vector<std::byte> sent = pattern(300001);
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(std::fwrite(sent.data(), 1, sent.size(), f), sent.size());
  std::fflush(f);
  ::lseek(fileno(f), 0, SEEK_SET);
  EXPECT_EQ(read_all(fileno(f), "the file"), sent);
  std::fclose(f);
}

TEST(ReadAll, ReadsAPipeWrittenInPieces) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  // Less than the pipe holds, so the writer never waits for the reader; it arrives in pieces.
  const std::vector<std::byte> sent = pattern(60000);
  std::thread writer([&] {
    for (std::size_t at = 0; at < sent.size(); at += 7777) {
      if (::write(fds[1], sent.data() + at, std::min<std::size_t>(7777, sent.size() - at)) <= 0) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ::close(fds[1]);
  });
  const std::vector<std::byte> got = read_all(fds[0], "the pipe");
  writer.join();
  ::close(fds[0]);
  EXPECT_EQ(got, sent);
}

TEST(ReadAll, AnEmptyStreamGivesNoBytes) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[1]);
  EXPECT_TRUE(read_all(fds[0], "the pipe").empty());
  ::close(fds[0]);
}

TEST(ReadAll, AFailedReadIsAnIoErrorNamingTheStream) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[0]);
  ::close(fds[1]);
  try {
    read_all(fds[0], "standard input");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_EQ(std::string(e.what()), std::string("cannot read standard input: ") + std::strerror(EBADF));
  }
}

TEST(ReadAll, ReadTextFileGivesTheBytesOrNamesTheFile) {
  testing::ScratchDir dir("read_text_file");
  const std::string text("line 1\n\0\xff{{ x }}", 16);
  testing::write_text(dir.file("t.txt"), text);
  EXPECT_EQ(read_text_file(dir.file("t.txt")), text);
  testing::write_text(dir.file("empty.txt"), "");
  EXPECT_EQ(read_text_file(dir.file("empty.txt")), "");
  auto expect_io = [](const std::string& path, const std::string& message, int err) {
    try {
      read_text_file(path);
      ADD_FAILURE() << "no error for " << path;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Io);
      EXPECT_EQ(std::string(e.what()), message);
      EXPECT_EQ(e.system_error(), err);
    }
  };
  expect_io(dir.file("missing.txt"), "cannot open " + dir.file("missing.txt") + ": No such file or directory", ENOENT);
  expect_io(dir.file("."), "cannot read " + dir.file(".") + ": Is a directory", EISDIR);
}

}  // namespace
}  // namespace onnxq
