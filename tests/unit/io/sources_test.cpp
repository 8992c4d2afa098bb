// The local byte sources and open_source: the same bytes whichever way a file is read, and
// today's messages for files that cannot be.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>

#include "onnxq/core/error.hpp"
#include "onnxq/gguf/model.hpp"
#include "onnxq/gguf/tensor_reader.hpp"
#include "onnxq/io/mapped_source.hpp"
#include "onnxq/io/open_source.hpp"
#include "onnxq/io/pread_source.hpp"

namespace onnxq {
namespace {

const std::string kZoo = std::string(ONNXQ_TESTDATA_DIR) + "/zoo.gguf";

std::string error_of(const std::function<void()>& f, ErrorKind kind) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

std::vector<std::byte> all_of(const ByteSource& source, std::uint64_t step) {
  std::vector<std::byte> bytes(source.size());
  for (std::uint64_t at = 0; at < bytes.size(); at += step) {
    const std::uint64_t n = std::min<std::uint64_t>(step, bytes.size() - at);
    source.read(at, std::span(bytes).subspan(at, n), bytes.size());
  }
  return bytes;
}

TEST(LocalSources, MappedAndPreadGiveTheZooFilesBytes) {
  const auto mapped = MappedSource::open(kZoo);
  const auto pread = PreadSource::open(kZoo);
  ASSERT_EQ(mapped->size(), pread->size());
  ASSERT_GT(mapped->size(), 0u);
  ASSERT_TRUE(mapped->view());
  EXPECT_FALSE(pread->view()) << "pread holds nothing in memory";
  const auto read_mapped = all_of(*mapped, 4093);
  EXPECT_TRUE(std::equal(read_mapped.begin(), read_mapped.end(), mapped->view()->begin()));
  EXPECT_EQ(all_of(*pread, 4093), read_mapped);
  EXPECT_EQ(all_of(*pread, 1 << 20), read_mapped);
}

TEST(LocalSources, EveryZooTensorReadsTheSameMappedOrThroughPread) {
  const GgufModel mapped = GgufModel::open(kZoo);
  IoOptions options;
  options.local = LocalReads::Pread;
  const GgufModel pread = GgufModel::open(kZoo, ShardPolicy::All, options);
  ASSERT_EQ(mapped.tensors().size(), pread.tensors().size());
  EXPECT_FALSE(mapped.is_remote(mapped.tensors()[0]));
  EXPECT_TRUE(pread.is_remote(pread.tensors()[0])) << "read by copies";
  std::vector<std::byte> scratch_a, scratch_b;
  for (std::size_t i = 0; i < mapped.tensors().size(); ++i) {
    const TensorReader a(mapped, mapped.tensors()[i]), b(pread, pread.tensors()[i]);
    const auto x = a.blocks(0, a.block_count(), scratch_a);
    const auto y = b.blocks(0, b.block_count(), scratch_b);
    ASSERT_EQ(x.size(), y.size()) << mapped.tensors()[i].name;
    EXPECT_TRUE(std::equal(x.begin(), x.end(), y.begin())) << mapped.tensors()[i].name;
  }
}

class ShrinkingFile : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() / ("onnxq_shrink_" + std::to_string(::getpid()))).string();
    std::ofstream(path_, std::ios::binary) << std::string(4096, 'x');
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::string path_;
};

TEST_F(ShrinkingFile, PreadPastTheNewEndNamesTheChange) {
  const auto source = PreadSource::open(path_);
  std::filesystem::resize_file(path_, 100);
  std::vector<std::byte> got(4096);
  EXPECT_EQ(error_of([&] { source->read(0, got, got.size()); }, ErrorKind::Io),
            path_ + " changed size while it was being read (4096 bytes when opened, 100 now)");
  std::vector<std::byte> head(100);
  source->read(0, head, head.size());  // what is still there reads as before
  EXPECT_EQ(head, std::vector<std::byte>(100, std::byte{'x'}));
}

TEST(OpenSource, AMissingFileKeepsTodaysMessage) {
  const std::string path = "/nonexistent/model.gguf";
  for (LocalReads local : {LocalReads::Map, LocalReads::Pread}) {
    IoOptions options;
    options.local = local;
    EXPECT_EQ(error_of([&] { open_source(path, options); }, ErrorKind::Io),
              "cannot open " + path + ": No such file or directory");
  }
}

TEST(OpenSource, ADirectoryKeepsTodaysMessage) {
  const std::string dir = std::filesystem::temp_directory_path().string();
  for (LocalReads local : {LocalReads::Map, LocalReads::Pread}) {
    IoOptions options;
    options.local = local;
    EXPECT_EQ(error_of([&] { open_source(dir, options); }, ErrorKind::Io), dir + " is a directory, expected a file");
  }
}

TEST(OpenSource, APipeIsReadIntoMemoryWhenMappedAndRefusedByPread) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ASSERT_EQ(::write(fds[1], "abc", 3), 3);
  ::close(fds[1]);
  const std::string path = "/dev/fd/" + std::to_string(fds[0]);
  IoOptions pread;
  pread.local = LocalReads::Pread;
  EXPECT_EQ(error_of([&] { open_source(path, pread); }, ErrorKind::Io),
            path + " is not a regular file, so it cannot be read by offset");
  const auto source = open_source(path);
  ::close(fds[0]);
  ASSERT_TRUE(source->view());
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(source->view()->data()), source->size()), "abc");
}

class TimeoutVariable : public ::testing::Test {
 protected:
  void TearDown() override { ::unsetenv("ONNXQ_TIMEOUT"); }
};

TEST_F(TimeoutVariable, SetsTheRemoteTimeout) {
  ::unsetenv("ONNXQ_TIMEOUT");
  EXPECT_EQ(IoOptions::from_environment().remote.timeout_seconds, RemoteOptions{}.timeout_seconds);
  ::setenv("ONNXQ_TIMEOUT", "2.5", 1);
  EXPECT_EQ(IoOptions::from_environment().remote.timeout_seconds, 2.5);
  ::setenv("ONNXQ_TIMEOUT", "", 1);
  EXPECT_EQ(IoOptions::from_environment().remote.timeout_seconds, RemoteOptions{}.timeout_seconds);
}

TEST_F(TimeoutVariable, ANonPositiveOrMalformedValueIsAnInvalidArgument) {
  for (const char* text : {"soon", "0", "-1", "2s"}) {
    ::setenv("ONNXQ_TIMEOUT", text, 1);
    EXPECT_EQ(error_of([] { IoOptions::from_environment(); }, ErrorKind::InvalidArgument),
              std::string("ONNXQ_TIMEOUT must be a positive number of seconds, got '") + text + "'");
  }
}

}  // namespace
}  // namespace onnxq
