// gguf-split's shard names and the split.* rule set that GgufModel::open and `onnxq check` share.
#include <gtest/gtest.h>

#include "onnxq/gguf/split.hpp"

namespace onnxq {
namespace {

TEST(GgufSplitName, ParsesTheFiveDigitSuffix) {
  const auto name = parse_gguf_split_name("dir/model-00002-of-00013.gguf");
  ASSERT_TRUE(name);
  EXPECT_EQ(name->base, "dir/model");
  EXPECT_EQ(name->number, 2);
  EXPECT_EQ(name->count, 13);
  const auto bare = parse_gguf_split_name("-99999-of-99999.gguf");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->base, "");
  EXPECT_EQ(bare->number, 99999);
  const auto zero = parse_gguf_split_name("m-00000-of-00003.gguf");
  ASSERT_TRUE(zero) << "a number outside 1..count is the rules' business, not the name's";
  EXPECT_EQ(zero->number, 0);
}

TEST(GgufSplitName, RejectsMalformedNames) {
  for (const char* path : {"model.gguf", "", "-0001-of-00003.gguf", "model-0002-of-00003.gguf",
                           "model-00002-of-0003.gguf", "model-000002-of-00003.gguf.part", "model-00002-of-00003.GGUF",
                           "model-00002-0f-00003.gguf", "model_00002-of-00003.gguf", "model-00a02-of-00003.gguf",
                           "model-00002-of-00 03.gguf", "model-00002-of-00003.gguff", "00002-of-00003.gguf"}) {
    SCOPED_TRACE(path);
    EXPECT_FALSE(parse_gguf_split_name(path));
  }
}

TEST(GgufSplitName, FormatsWhatItParses) {
  EXPECT_EQ(split_shard_suffix(7, 12), "-00007-of-00012");
  EXPECT_EQ(gguf_split_path("out/m", 1, 3), "out/m-00001-of-00003.gguf");
  for (const int count : {1, 2, 10, 99999})
    for (const int number : {1, count}) {
      const auto name = parse_gguf_split_name(gguf_split_path("a-00001-of-00002", number, count));
      ASSERT_TRUE(name);
      EXPECT_EQ(name->base, "a-00001-of-00002");
      EXPECT_EQ(name->number, number);
      EXPECT_EQ(name->count, count);
    }
}

TEST(GgufSplitRules, ANumberOutsideTheCountIsOneProblem) {
  EXPECT_TRUE(gguf_split_name_problems(1, 3).empty());
  EXPECT_TRUE(gguf_split_name_problems(3, 3).empty());
  for (const int number : {0, 4}) {
    const auto problems = gguf_split_name_problems(number, 3);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0].code, "split-index");
    EXPECT_EQ(problems[0].reason, "shard number " + std::to_string(number) + " is outside 1..3");
    EXPECT_EQ(problems[0].finding, problems[0].reason);
  }
}

TEST(GgufSplitRules, EveryKeyThatDisagreesWithTheNameIsReported) {
  EXPECT_TRUE(gguf_split_shard_problems({.no = 1, .count = 3}, 2, 3).empty());
  EXPECT_TRUE(gguf_split_shard_problems({}, 2, 3).empty()) << "absent keys are not checked";
  const auto problems = gguf_split_shard_problems({.no = 0, .count = 5}, 2, 3);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].code, "split-count");
  EXPECT_EQ(problems[0].key, "split.count");
  EXPECT_FALSE(problems[0].warning);
  EXPECT_EQ(problems[0].reason, "metadata split.count = 5, but the file name says 3 shards");
  EXPECT_EQ(problems[0].finding, "says 5 shards, but the file name says 3");
  EXPECT_EQ(problems[1].code, "split-no");
  EXPECT_EQ(problems[1].key, "split.no");
  EXPECT_EQ(problems[1].reason, "metadata split.no = 0, expected 1 for shard 2");
  EXPECT_EQ(problems[1].finding, "is 0, expected 1 for shard 2");
}

TEST(GgufSplitRules, ACountWithoutTheNamingIsReported) {
  EXPECT_TRUE(gguf_unsplit_name_problems({}).empty());
  EXPECT_TRUE(gguf_unsplit_name_problems({.count = 1}).empty());
  const auto problems = gguf_unsplit_name_problems({.count = 4});
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].code, "split-count");
  EXPECT_EQ(problems[0].key, "split.count");
  EXPECT_EQ(problems[0].reason,
            "metadata split.count = 4 but the file name does not follow the <name>-00001-of-0000N.gguf pattern, so "
            "its shards cannot be found");
  EXPECT_EQ(problems[0].finding,
            "is 4 but the file name does not follow <name>-00001-of-0000N.gguf, so its shards cannot be found");
}

TEST(GgufSplitRules, EveryProblemOfTheSetIsReportedAtItsShard) {
  const GgufSplitShard consistent[] = {{{.no = 0, .count = 2, .tensors_count = 5}, 3},
                                       {{.no = 1, .count = 2, .tensors_count = 5}, 2}};
  EXPECT_TRUE(gguf_split_set_problems(consistent).empty());

  const GgufSplitShard shards[] = {
      {{.no = 0, .count = 3, .tensors_count = 9}, 3}, {{.no = 1, .count = 3, .tensors_count = 8}, 2}, {{}, 1}};
  const auto problems = gguf_split_set_problems(shards);
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_EQ(problems[0].code, "split-keys-disagree");
  EXPECT_EQ(problems[0].shard, 1u);
  EXPECT_EQ(problems[0].key, "split.tensors.count");
  EXPECT_TRUE(problems[0].warning);
  EXPECT_TRUE(problems[0].reason.empty()) << "GgufModel::open reads only the first shard's count";
  EXPECT_EQ(problems[0].finding, "is 8 here but 9 in the first shard");

  EXPECT_EQ(problems[1].code, "split-tensor-count");
  EXPECT_EQ(problems[1].shard, 0u);
  EXPECT_FALSE(problems[1].warning);
  EXPECT_EQ(problems[1].reason, "metadata split.tensors.count = 9, but the shards hold 6 tensors");
  EXPECT_EQ(problems[1].finding, "says 9 tensors, but the shards hold 6");

  EXPECT_EQ(problems[2].code, "split-keys-disagree");
  EXPECT_EQ(problems[2].shard, 0u);
  EXPECT_TRUE(problems[2].key.empty());
  EXPECT_TRUE(problems[2].warning);
  EXPECT_EQ(problems[2].finding, "1 of 3 shards have no split.* keys while the others have them");
}

}  // namespace
}  // namespace onnxq
