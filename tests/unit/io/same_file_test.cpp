// The same-file guard: an output onto a file the process reads is refused, and the file is kept.
#include "onnxq/io/same_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

#include "expected_npy.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/io/atomic_file.hpp"
#include "scratch_dir.hpp"

namespace onnxq::testing {
namespace {

void expect_refused(const std::string& path) {
  try {
    AtomicFile::create(path);
    FAIL() << "an output onto " << path << " was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_EQ(std::string(e.what()), "refusing to write to " + path + ": it is one of the input files");
  }
}

TEST(SameFile, AnOutputOntoAnOpenInputIsRefused) {
  ScratchDir dir("same_open");
  const std::string input = dir.file("input.bin");
  write_text(input, "input");
  const int fd = ::open(input.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  expect_refused(input);
  ::close(fd);
  EXPECT_EQ(read_text(input), "input");
  AtomicFile::create(input).discard();  // closed and not noted: no longer an input
}

// Noted inputs are kept for the whole process, so the file noted is one that outlives the test
// binary (a scratch file's inode could be reused by the next test's files).
TEST(SameFile, ANotedInputStaysRefusedAfterItIsClosed) {
  const std::string input = testdata_path("zoo.gguf");
  struct stat st {};
  ASSERT_EQ(::stat(input.c_str(), &st), 0);
  EXPECT_FALSE(is_process_input(st.st_dev, st.st_ino));
  note_input_file(input);
  EXPECT_TRUE(is_process_input(st.st_dev, st.st_ino));
  expect_refused(input);  // refused before anything is created beside it
}

}  // namespace
}  // namespace onnxq::testing
