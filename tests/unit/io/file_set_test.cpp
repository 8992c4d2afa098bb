// FileSet: all files named, or none, even when a failure strikes between two swaps.
#include "onnxq/io/file_set.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>

#include "onnxq/core/error.hpp"
#include "scratch_dir.hpp"

namespace onnxq::testing {
namespace {

AtomicFile::Options file_set_options(bool unnamed) {
  AtomicFile::Options o;
  o.unnamed = unnamed;
  return o;
}

class FileSetTest : public ::testing::TestWithParam<bool> {};

TEST_P(FileSetTest, NamesEveryFile) {
  ScratchDir dir("set_ok");
  write_text(dir.file("a"), "old a");
  AtomicFile a = AtomicFile::create(dir.file("a"), file_set_options(GetParam()));
  AtomicFile b = AtomicFile::create(dir.file("b"), file_set_options(GetParam()));
  a.write("new a", 5);
  b.write("new b", 5);
  FileSet set;
  set.add(a);
  set.add(b);
  set.commit();
  EXPECT_EQ(read_text(dir.file("a")), "new a");
  EXPECT_EQ(read_text(dir.file("b")), "new b");
  EXPECT_EQ(dir.names(), (std::set<std::string>{"a", "b"}));
}

// The third file's swap fails after two were swapped in: the first (which replaced a file) is
// swapped back, the second (a new name) removed.
TEST_P(FileSetTest, AFailureBetweenTwoSwapsNamesNothing) {
  ScratchDir dir("set_hook");
  write_text(dir.file("a"), "old a");
  AtomicFile a = AtomicFile::create(dir.file("a"), file_set_options(GetParam()));
  AtomicFile b = AtomicFile::create(dir.file("b"), file_set_options(GetParam()));
  AtomicFile c = AtomicFile::create(dir.file("c"), file_set_options(GetParam()));
  for (AtomicFile* f : {&a, &b, &c}) f->write("new", 3);
  FileSet set;
  set.add(a);
  set.add(b);
  set.add(c);
  set.set_before_swap_for_testing([](std::size_t swapped) {
    if (swapped == 2) throw std::runtime_error("injected");
  });
  EXPECT_THROW(set.commit(), std::runtime_error);
  EXPECT_EQ(read_text(dir.file("a")), "old a");
  EXPECT_EQ(dir.names(), std::set<std::string>{"a"});
}

// A real failure: the second target became a directory while the files were written, so its
// rename fails after the first file was swapped in.
TEST_P(FileSetTest, AFailedRenameUndoesTheSwapsBeforeIt) {
  ScratchDir dir("set_rename");
  write_text(dir.file("a"), "old a");
  AtomicFile a = AtomicFile::create(dir.file("a"), file_set_options(GetParam()));
  AtomicFile b = AtomicFile::create(dir.file("b"), file_set_options(GetParam()));
  a.write("new a", 5);
  b.write("new b", 5);
  std::filesystem::create_directories(dir.file("b") + "/inside");
  FileSet set;
  set.add(a);
  set.add(b);
  try {
    set.commit();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_NE(std::string(e.what()).find("cannot rename the temporary file onto"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_text(dir.file("a")), "old a");
  EXPECT_EQ(dir.names(), (std::set<std::string>{"a", "b"}));  // b: the directory, as it was
  EXPECT_TRUE(std::filesystem::is_directory(dir.file("b")));
}

INSTANTIATE_TEST_SUITE_P(UnnamedAndNamed, FileSetTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Unnamed" : "NamedTemporary"; });

}  // namespace
}  // namespace onnxq::testing
