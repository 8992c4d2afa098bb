// AtomicFile: complete or absent, the old target untouched until commit(), with both ways of
// holding the data (an unnamed file, a named temporary).
#include "onnxq/io/atomic_file.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "onnxq/core/error.hpp"
#include "scratch_dir.hpp"

namespace onnxq::testing {
namespace {

class AtomicFileTest : public ::testing::TestWithParam<bool> {
 protected:
  AtomicFile::Options options(bool durable = false) const {
    AtomicFile::Options o;
    o.unnamed = GetParam();
    o.durable = durable;
    return o;
  }
};

TEST_P(AtomicFileTest, LeavesNoFileWithoutCommit) {
  ScratchDir dir("no_commit");
  {
    AtomicFile file = AtomicFile::create(dir.file("out.bin"), options());
    EXPECT_EQ(file.kind(), GetParam() ? AtomicFile::Kind::Unnamed : AtomicFile::Kind::NamedTemporary);
    file.write("partial", 7);
  }
  EXPECT_EQ(dir.names(), std::set<std::string>{});
}

TEST_P(AtomicFileTest, ReplacesTheTargetOnlyAtCommit) {
  ScratchDir dir("replace");
  const std::string target = dir.file("out.bin");
  write_text(target, "old contents");
  AtomicFile file = AtomicFile::create(target, options());
  file.write("new", 3);
  file.write_at(3, "!", 1);  // positional, past the write position
  EXPECT_EQ(read_text(target), "old contents");
  file.commit();
  EXPECT_EQ(read_text(target), "new!");
  EXPECT_EQ(dir.names(), std::set<std::string>{"out.bin"});  // the old file and any temporary are gone
}

TEST_P(AtomicFileTest, DurableCommitNamesTheFile) {
  ScratchDir dir("durable");
  for (const char* name : {"new.bin", "existing.bin"}) {
    if (std::string(name) == "existing.bin") write_text(dir.file(name), "old");
    AtomicFile file = AtomicFile::create(dir.file(name), options(/*durable=*/true));
    file.write("durable", 7);
    file.commit();
    EXPECT_EQ(read_text(dir.file(name)), "durable") << name;
  }
  EXPECT_EQ(dir.names(), (std::set<std::string>{"existing.bin", "new.bin"}));
}

TEST_P(AtomicFileTest, LiveTemporariesAreRemovedOnRequest) {
  ScratchDir dir("live");
  AtomicFile file = AtomicFile::create(dir.file("out.bin"), options());
  file.write("x", 1);
  remove_live_temporaries();  // what a signal handler does
  EXPECT_EQ(dir.names(), std::set<std::string>{});
}

TEST_P(AtomicFileTest, RefusesADirectory) {
  ScratchDir dir("directory");
  try {
    AtomicFile::create(dir.file(""), options());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(UnnamedAndNamed, AtomicFileTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Unnamed" : "NamedTemporary"; });

}  // namespace
}  // namespace onnxq::testing
