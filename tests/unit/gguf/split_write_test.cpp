// Split and merge (onnxq/gguf/split_write.hpp): the planner by tensor count and by whole-file size
// (each shard as full as the limit allows, a lone tensor past it alone), the first shard without
// tensors, the files exactly their planned sizes, the split.* keys, and merge giving back the file
// the writer wrote, byte for byte; outputs onto the inputs refused before anything is written.
#include "onnxq/gguf/split_write.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "../io/scratch_dir.hpp"
#include "gguf_builder.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/gguf/split.hpp"

namespace onnxq {
namespace {

using testing::BuilderTensor;
using testing::GgufBuilder;
using testing::ScratchDir;

// Five f32 tensors of 100, 40, 3000, 8 and 64 bytes (the third one large), with some metadata.
std::string write_model(const ScratchDir& dir) {
  GgufBuilder b;
  b.kv_str("general.architecture", "llama");
  b.kv_str("general.name", std::string(300, 'n'));
  b.kv_u32("test.value", 7);
  const std::uint64_t sizes[] = {100, 40, 3000, 8, 64};
  for (std::size_t i = 0; i < 5; ++i) {
    BuilderTensor t;
    t.name = "t";  // appended: GCC 12 warns (-Wrestrict, a false positive) on "t" + std::string
    t.name.append(std::to_string(i)).append(".weight");
    t.ne = {sizes[i] / 4};
    t.type = 0;
    for (std::uint64_t k = 0; k < sizes[i]; ++k) t.data.push_back(static_cast<std::uint8_t>(i * 31 + k));
    b.tensor(std::move(t));
  }
  const auto bytes = b.build();
  testing::write_text(dir.file("raw.gguf"), std::string(bytes.begin(), bytes.end()));
  // The writer's own layout, so that a merge can give it back byte for byte.
  const GgufModel raw = GgufModel::open(dir.file("raw.gguf"));
  const GgufFilePlan plan = gguf_plan_merge(raw, dir.file("model.gguf"));
  gguf_write_files(raw, {plan});
  return dir.file("model.gguf");
}

std::vector<std::size_t> counts(const std::vector<GgufFilePlan>& plans) {
  std::vector<std::size_t> out;
  for (const auto& p : plans) out.push_back(p.tensors.size());
  return out;
}

std::uint64_t key(const GgufMetadata& md, std::string_view name, GgufType type) {
  const GgufOwnedValue* v = md.find(name);
  EXPECT_NE(v, nullptr) << name;
  if (!v) return ~0ull;
  EXPECT_EQ(v->type(), type) << name;
  return v->raw_bits();
}

TEST(SplitPlan, ByTensorCountWithTheKeysOfGgufSplit) {
  ScratchDir dir("split_count");
  const GgufModel model = GgufModel::open(write_model(dir));
  const auto plans = gguf_plan_split(model, dir.file("p"), {.max_tensors = 2});
  EXPECT_EQ(counts(plans), (std::vector<std::size_t>{2, 2, 1}));
  for (std::size_t s = 0; s < plans.size(); ++s) {
    EXPECT_EQ(plans[s].path, gguf_split_path(dir.file("p"), s + 1, 3));
    EXPECT_EQ(key(plans[s].metadata, "split.no", GgufType::UInt16), s);
    EXPECT_EQ(key(plans[s].metadata, "split.count", GgufType::UInt16), 3u);
    EXPECT_EQ(key(plans[s].metadata, "split.tensors.count", GgufType::Int32), 5u);
    // The model's metadata in the first shard only.
    EXPECT_EQ(plans[s].metadata.find("general.name") != nullptr, s == 0);
    EXPECT_EQ(plans[s].metadata.size(), s == 0 ? 6u : 3u);
  }
}

TEST(SplitPlan, BySizeEachShardAsFullAsTheLimitAllowsAndTheFilesThatSize) {
  ScratchDir dir("split_size");
  const GgufModel model = GgufModel::open(write_model(dir));
  for (const std::uint64_t limit : {700u, 1000u, 4000u, 5000u}) {
    const auto plans = gguf_plan_split(model, dir.file("p"), {.max_bytes = limit});
    std::size_t total = 0;
    for (std::size_t s = 0; s < plans.size(); ++s) {
      const auto& p = plans[s];
      total += p.tensors.size();
      ASSERT_FALSE(p.tensors.empty());
      if (p.tensors.size() > 1) {
        EXPECT_LE(p.layout.file_size, limit) << p.path;
      }
      // The next shard's first tensor would not have fit.
      if (s + 1 < plans.size()) {
        auto more = p.tensors;
        more.push_back(plans[s + 1].tensors.front());
        EXPECT_GT(gguf_plan(p.metadata, more, {}).file_size, limit) << p.path << " limit " << limit;
      }
    }
    EXPECT_EQ(total, 5u);
    const auto paths = gguf_write_files(model, plans);
    for (std::size_t s = 0; s < plans.size(); ++s)
      EXPECT_EQ(std::filesystem::file_size(paths[s]), plans[s].layout.file_size) << paths[s];
    for (const auto& p : paths) std::filesystem::remove(p);
  }
}

TEST(SplitPlan, ATensorPastTheLimitStandsAlone) {
  ScratchDir dir("split_big");
  const GgufModel model = GgufModel::open(write_model(dir));
  const auto plans = gguf_plan_split(model, dir.file("p"), {.max_bytes = 1000});
  bool seen = false;
  for (const auto& p : plans)
    if (!p.tensors.empty() && p.tensors.front().name == "t2.weight") {
      EXPECT_EQ(p.tensors.size(), 1u);
      EXPECT_GT(p.layout.file_size, 1000u);
      seen = true;
    }
  EXPECT_TRUE(seen);
  // A limit smaller than any file: one tensor a shard.
  EXPECT_EQ(counts(gguf_plan_split(model, dir.file("p"), {.max_bytes = 1})), (std::vector<std::size_t>{1, 1, 1, 1, 1}));
}

TEST(SplitPlan, NoTensorFirstSplitKeepsTheMetadataAlone) {
  ScratchDir dir("split_first");
  const GgufModel model = GgufModel::open(write_model(dir));
  const auto by_count = gguf_plan_split(model, dir.file("p"), {.max_tensors = 3, .no_tensor_first_split = true});
  EXPECT_EQ(counts(by_count), (std::vector<std::size_t>{0, 3, 2}));
  EXPECT_NE(by_count[0].metadata.find("general.name"), nullptr);
  const auto by_size = gguf_plan_split(model, dir.file("p"), {.max_bytes = 1u << 20, .no_tensor_first_split = true});
  EXPECT_EQ(counts(by_size), (std::vector<std::size_t>{0, 5}));
}

TEST(SplitPlan, RefusesBadLimits) {
  ScratchDir dir("split_limits");
  const GgufModel model = GgufModel::open(write_model(dir));
  EXPECT_THROW(gguf_plan_split(model, dir.file("p"), {}), Error);
  EXPECT_THROW(gguf_plan_split(model, dir.file("p"), {.max_bytes = 10, .max_tensors = 1}), Error);
  EXPECT_THROW(gguf_plan_split(model, dir.file("p"), {.max_tensors = 0}), Error);
}

TEST(SplitMerge, MergeOfAnyShardGivesTheFileBack) {
  ScratchDir dir("split_merge");
  const std::string original = write_model(dir);
  {
    const GgufModel model = GgufModel::open(original);
    gguf_write_files(model, gguf_plan_split(model, dir.file("p"), {.max_tensors = 2}));
  }
  const GgufModel set = GgufModel::open(gguf_split_path(dir.file("p"), 2, 3));
  ASSERT_EQ(set.shards().size(), 3u);
  gguf_write_files(set, {gguf_plan_merge(set, dir.file("merged.gguf"))});
  EXPECT_EQ(testing::read_text(dir.file("merged.gguf")), testing::read_text(original));
}

TEST(SplitMerge, OutputsOntoInputsAreRefusedBeforeWriting) {
  ScratchDir dir("split_refuse");
  const std::string original = write_model(dir);
  {
    const GgufModel model = GgufModel::open(original);
    gguf_write_files(model, gguf_plan_split(model, dir.file("p"), {.max_tensors = 2}));
  }
  const std::string shard2 = gguf_split_path(dir.file("p"), 2, 3);
  const std::string before = testing::read_text(shard2);
  const GgufModel set = GgufModel::open(shard2);
  EXPECT_THROW(gguf_plan_merge(set, shard2), Error);                             // a shard itself
  EXPECT_THROW(gguf_plan_merge(set, dir.file("q-00001-of-00002.gguf")), Error);  // a shard's name
  std::filesystem::create_symlink(shard2, dir.file("link.gguf"));
  EXPECT_THROW(gguf_plan_merge(set, dir.file("link.gguf")), Error);              // a shard under another name
  EXPECT_THROW(gguf_plan_split(set, dir.file("p"), {.max_tensors = 2}), Error);  // its own shards
  EXPECT_EQ(testing::read_text(shard2), before);
  EXPECT_FALSE(std::filesystem::exists(dir.file("q-00001-of-00002.gguf")));
}

}  // namespace
}  // namespace onnxq
