// The split.* rule set as its two users word it: `onnxq check` reports every problem at its
// shard, GgufModel::open refuses the model with the first one.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "gguf_builder.hpp"
#include "onnxq/check/check.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/gguf/model.hpp"
#include "onnxq/gguf/split.hpp"

namespace onnxq {
namespace {

using testing::GgufBuilder;

class SplitFindings : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("onnxq-split-findings-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string shard(int number) const { return gguf_split_path((dir_ / "m").string(), number, 3); }

  void write(int number, const GgufBuilder& b) const {
    const auto bytes = b.build();
    std::ofstream(shard(number), std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }

  // Shard 2's keys disagree with its name and with shard 1; shard 3 has no keys and repeats a tensor.
  void write_inconsistent_set(int shard2_count) const {
    GgufBuilder one;
    one.kv_u16("split.no", 0).kv_u16("split.count", 3).kv_i32("split.tensors.count", 9).tensor("a", {32}, 0);
    write(1, one);
    GgufBuilder two;
    two.kv_u16("split.no", 0).kv_u16("split.count", static_cast<std::uint16_t>(shard2_count));
    two.kv_i32("split.tensors.count", 8).tensor("b", {32}, 0);
    write(2, two);
    GgufBuilder three;
    three.tensor("a", {32}, 0);
    write(3, three);
  }

  std::filesystem::path dir_;
};

struct Seen {
  std::string file, code, key, tensor, message;
  bool warning;
};

TEST_F(SplitFindings, CheckReportsEveryProblemAtItsShard) {
  write_inconsistent_set(5);
  std::vector<Seen> seen;
  for (const Finding& f : check_gguf_file(shard(2)))
    if (f.code.starts_with("split-"))
      seen.push_back({f.file, f.code, f.key, f.tensor, f.message, f.severity == Severity::Warning});
  const std::vector<Seen> expected = {
      {shard(1), "split-tensor-count", "split.tensors.count", "", "says 9 tensors, but the shards hold 3", false},
      {shard(1), "split-keys-disagree", "", "", "1 of 3 shards have no split.* keys while the others have them", true},
      {shard(2), "split-count", "split.count", "", "says 5 shards, but the file name says 3", false},
      {shard(2), "split-no", "split.no", "", "is 0, expected 1 for shard 2", false},
      {shard(2), "split-keys-disagree", "split.tensors.count", "", "is 8 here but 9 in the first shard", true},
      {shard(3), "split-duplicate-tensor", "", "a", "also appears in shard 1", false},
  };
  ASSERT_EQ(seen.size(), expected.size());
  for (std::size_t i = 0; i < seen.size(); ++i) {
    SCOPED_TRACE(expected[i].code);
    EXPECT_EQ(seen[i].file, expected[i].file);
    EXPECT_EQ(seen[i].key, expected[i].key);
    EXPECT_EQ(seen[i].tensor, expected[i].tensor);
    EXPECT_EQ(seen[i].message, expected[i].message);
    EXPECT_EQ(seen[i].warning, expected[i].warning);
  }
}

std::string open_error(const std::string& path) {
  try {
    GgufModel::open(path);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
    return e.what();
  }
  return "(opened)";
}

TEST_F(SplitFindings, OpenRefusesTheFirstProblem) {
  write_inconsistent_set(5);
  EXPECT_EQ(open_error(shard(1)), shard(2) + ": metadata split.count = 5, but the file name says 3 shards");
  write_inconsistent_set(3);
  EXPECT_EQ(open_error(shard(3)), shard(2) + ": metadata split.no = 0, expected 1 for shard 2");
}

TEST_F(SplitFindings, OpenHoldsTheModelToTheFirstShardsTensorCount) {
  write_inconsistent_set(3);
  GgufBuilder two;
  two.kv_u16("split.no", 1).kv_u16("split.count", 3).kv_i32("split.tensors.count", 8).tensor("b", {32}, 0);
  write(2, two);
  EXPECT_EQ(open_error(shard(2)), shard(1) + ": metadata split.tensors.count = 9, but the shards hold 3 tensors");
}

}  // namespace
}  // namespace onnxq
