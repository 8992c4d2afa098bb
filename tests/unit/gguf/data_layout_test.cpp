// ggml's data-offset chain (onnxq/gguf/layout.hpp), against a file ggml's own writer laid out.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "onnxq/gguf/layout.hpp"
#include "onnxq/gguf/model.hpp"

namespace onnxq {
namespace {

TEST(GgufLayout, PaddingRoundsUpToTheAlignment) {
  EXPECT_EQ(gguf_padded(0, 32), 0u);
  EXPECT_EQ(gguf_padded(1, 32), 32u);
  EXPECT_EQ(gguf_padded(32, 32), 32u);
  EXPECT_EQ(gguf_padded(33, 32), 64u);
  EXPECT_EQ(gguf_padded(5, 1), 5u);
  EXPECT_FALSE(gguf_padded(UINT64_MAX - 3, 32));
}

TEST(GgufLayout, EachTensorStartsAtThePaddedEndOfThePrevious) {
  const std::vector<std::uint64_t> sizes = {10, 0, 64, 33, 1};
  EXPECT_EQ(gguf_tensor_offsets(sizes, 32), (std::vector<std::uint64_t>{0, 32, 32, 96, 160, 192}));
  EXPECT_EQ(gguf_tensor_offsets({}, 32), (std::vector<std::uint64_t>{0}));
}

TEST(GgufLayout, TheChainStopsWhereItOverflows) {
  const std::vector<std::uint64_t> sizes = {std::uint64_t{1} << 63, std::uint64_t{1} << 63, 1};
  EXPECT_EQ(gguf_tensor_offsets(sizes, 32), (std::vector<std::uint64_t>{0, std::uint64_t{1} << 63}))
      << "the second tensor's end is past 2^64: its offset is the last one known";
  const std::vector<std::uint64_t> huge = {UINT64_MAX - 3};
  EXPECT_EQ(gguf_tensor_offsets(huge, 32), (std::vector<std::uint64_t>{0}));
}

TEST(GgufLayout, TheZooFileFollowsTheChain) {
  const GgufModel model = GgufModel::open(std::string(ONNXQ_TESTDATA_DIR) + "/zoo.gguf");
  const GgufFile& shard = model.primary();
  ASSERT_GT(shard.tensors.size(), 10u);
  std::vector<std::uint64_t> sizes;
  for (const TensorInfo& t : shard.tensors) sizes.push_back(t.byte_size);
  const auto offsets = gguf_tensor_offsets(sizes, shard.alignment);
  ASSERT_EQ(offsets.size(), sizes.size() + 1);
  for (std::size_t i = 0; i < sizes.size(); ++i) EXPECT_EQ(shard.tensors[i].offset_in_data, offsets[i]) << i;
  EXPECT_EQ(shard.data_offset + offsets.back(), shard.size) << "ggml's writer pads the last tensor too";
  EXPECT_EQ(shard.data_offset % shard.alignment, 0u);
}

}  // namespace
}  // namespace onnxq
