// Tensor totals: per type, per layer group (gguf_dump.py's groups, on tensor_layer's rule) and per shard.
#include "onnxq/model/tensor_totals.hpp"

#include <gtest/gtest.h>

#include "gguf_builder.hpp"

namespace onnxq {
namespace {

TEST(TensorTotals, GroupsAreLayerPrefixesOrBase) {
  EXPECT_EQ(tensor_group("blk.12.attn_q.weight"), "blk.12");
  EXPECT_EQ(tensor_group("enc.blk.3.ffn_up.weight"), "enc.blk.3");
  EXPECT_EQ(tensor_group("dec.blk.0.x"), "dec.blk.0");
  EXPECT_EQ(tensor_group("token_embd.weight"), "base");
  EXPECT_EQ(tensor_group("blk.x.weight"), "base");
  EXPECT_EQ(tensor_group("blk.5"), "base");
  EXPECT_EQ(tensor_group("blk..w"), "base");
  EXPECT_EQ(tensor_group("a.blk.1.w"), "base");
  EXPECT_EQ(tensor_group("xenc.blk.1.w"), "base");
}

TEST(TensorTotals, ByTypeByGroupInFirstAppearanceOrder) {
  testing::GgufBuilder b;
  b.tensor("blk.1.a", {32}, 0, {});  // f32: 128 bytes
  b.tensor("output", {32}, 8, {});   // q8_0: 34 bytes
  b.tensor("blk.0.a", {64}, 8, {});  // q8_0: 68 bytes
  b.tensor("blk.1.b", {16}, 1, {});  // f16: 32 bytes
  const auto bytes = b.build();
  const GgufModel m = testing::parse_gguf(bytes);
  const auto by_type = totals_by_type(m);
  ASSERT_EQ(by_type.size(), 3u);
  EXPECT_EQ(by_type.at(8).tensors, 2u);
  EXPECT_EQ(by_type.at(8).elements, 96u);
  EXPECT_EQ(by_type.at(8).bytes, 102u);
  EXPECT_DOUBLE_EQ(by_type.at(8).bits_per_weight(), 8.5);
  std::vector<const TensorInfo*> all;
  for (const TensorInfo& t : m.tensors()) all.push_back(&t);
  const auto groups = group_tensors_by_layer(all);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].name, "blk.1");
  EXPECT_EQ(groups[1].name, "base");
  EXPECT_EQ(groups[2].name, "blk.0");
  ASSERT_EQ(groups[0].tensors.size(), 2u);
  EXPECT_EQ(groups[0].tensors[1]->name, "blk.1.b");
  EXPECT_EQ(groups[0].totals.elements, 48u);
  EXPECT_EQ(groups[0].totals.bytes, 160u);
  EXPECT_EQ(TensorTotals{}.bits_per_weight(), 0.0);
  const auto shards = shard_facts(m);
  ASSERT_EQ(shards.size(), 1u);
  EXPECT_TRUE(shards[0].present);
  EXPECT_EQ(shards[0].tensors, 4u);
}

}  // namespace
}  // namespace onnxq
