#include <gtest/gtest.h>

#include <set>

#include "onnxq/core/dtype.hpp"
#include "onnxq/formats/format.hpp"

namespace onnxq {
namespace {

TEST(FormatTable, HasTheSpecsBlockFormatsWithUniqueIds) {
  ASSERT_EQ(block_formats().size(), 27u);
  std::set<std::uint32_t> types;
  std::set<std::string_view> ids;
  for (const BlockFormat& f : block_formats()) {
    EXPECT_TRUE(f.is_block_format());
    EXPECT_TRUE(f.format_id.starts_with("gguf:")) << f.format_id;
    types.insert(f.ggml_type);
    ids.insert(f.format_id);
  }
  EXPECT_EQ(types.size(), 27u);
  EXPECT_EQ(ids.size(), 27u);
  EXPECT_EQ(all_formats().size(), 35u);
}

TEST(FormatTable, LooksUpByTypeAndName) {
  const BlockFormat* q4k = find_format("gguf:q4_k");
  ASSERT_NE(q4k, nullptr);
  EXPECT_EQ(q4k->ggml_type, 12u);
  EXPECT_EQ(q4k->block_elements, 256u);
  EXPECT_EQ(q4k->block_bytes, 144u);
  EXPECT_EQ(find_format("Q4_K"), q4k);
  EXPECT_EQ(find_format_by_ggml_type(12), q4k);
  EXPECT_EQ(find_format_by_ggml_type(30)->plain_dtype, DType::BFloat16);
  EXPECT_EQ(find_format("gguf:q9_9"), nullptr);
  EXPECT_EQ(find_format_by_ggml_type(4), nullptr);
  EXPECT_TRUE(is_removed_ggml_type(4));
  EXPECT_TRUE(is_removed_ggml_type(37));
  EXPECT_FALSE(is_removed_ggml_type(39));
  EXPECT_DOUBLE_EQ(find_format("gguf:q4_0")->bits_per_weight(), 4.5);
}

TEST(DTypeTable, ParsesCliAndNumpyNames) {
  EXPECT_EQ(parse_dtype_name("f32"), DType::Float);
  EXPECT_EQ(parse_dtype_name("float32"), DType::Float);
  EXPECT_EQ(parse_dtype_name("bf16"), DType::BFloat16);
  EXPECT_EQ(parse_dtype_name("uint8"), DType::UInt8);
  EXPECT_EQ(parse_dtype_name("BOOL"), DType::Bool);
  EXPECT_FALSE(parse_dtype_name("f128").has_value());
  EXPECT_EQ(dtype_storage_bytes(DType::Int4, 5), 3u);
  EXPECT_EQ(dtype_storage_bytes(DType::Double, 3), 24u);
  EXPECT_EQ(find_dtype(99), nullptr);
}

}  // namespace
}  // namespace onnxq
