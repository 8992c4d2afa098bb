// MappedFile keeps the list of files it holds (is_open), which the CLI uses to refuse writing
// onto a file that is being read.
#include "onnxq/core/mapped_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace onnxq {
namespace {

struct Id {
  std::uint64_t dev, ino;
};
Id id_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return {st.st_dev, st.st_ino};
}

TEST(MappedFile, IsOpenWhileAnyMappingOfTheFileLives) {
  const std::string path = ::testing::TempDir() + "mapped_file_test.bin";
  std::ofstream(path, std::ios::binary) << "some bytes";
  const Id id = id_of(path);
  EXPECT_FALSE(MappedFile::is_open(id.dev, id.ino));
  {
    auto first = MappedFile::open(path);
    EXPECT_TRUE(MappedFile::is_open(id.dev, id.ino));
    EXPECT_FALSE(MappedFile::is_open(id.dev, id.ino + 1));
    {
      auto second = MappedFile::open(path);
      EXPECT_EQ(second->bytes().size(), 10u);
    }
    EXPECT_TRUE(MappedFile::is_open(id.dev, id.ino)) << "one mapping is still alive";
  }
  EXPECT_FALSE(MappedFile::is_open(id.dev, id.ino));
  std::remove(path.c_str());
}

TEST(MappedFile, AnEmptyFileCountsAsOpenToo) {
  const std::string path = ::testing::TempDir() + "mapped_file_empty.bin";
  std::ofstream(path, std::ios::binary).flush();
  const Id id = id_of(path);
  {
    auto file = MappedFile::open(path);
    EXPECT_EQ(file->size(), 0u);
    EXPECT_TRUE(MappedFile::is_open(id.dev, id.ino));
  }
  EXPECT_FALSE(MappedFile::is_open(id.dev, id.ino));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace onnxq
