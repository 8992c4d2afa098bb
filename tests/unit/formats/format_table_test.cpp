#include <gtest/gtest.h>

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "formats/block_layouts.hpp"  // private: the layout structs the rows must agree with
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

// Each layout struct as the compiler lays it out, one entry per ONNXQ_FIELD of format_rows.def.
struct StructMember {
  std::string_view name;
  std::size_t offset, size;
};
struct StructLayout {
  std::string format_id;
  std::size_t size;
  std::vector<StructMember> members;
};
std::vector<StructLayout> layout_structs() {
  return {
#define ONNXQ_FIELD(member, bytes, kind) StructMember{#member, offsetof(L, member), sizeof(L::member)},
#define ONNXQ_BLOCK_FORMAT(id, ggml_type, ggml_name, gguf_name, qk, block_bytes, family, Layout, fields) \
  [] {                                                                                                   \
    using L = formats::Layout;                                                                           \
    return StructLayout{"gguf:" #id, sizeof(L), {fields}};                                               \
  }(),
#include "formats/format_rows.def"
  };
}

TEST(FormatRows, FieldsAgreeWithTheLayoutStructs) {
  const std::vector<StructLayout> structs = layout_structs();
  ASSERT_EQ(structs.size(), block_formats().size());
  for (const StructLayout& s : structs) {
    SCOPED_TRACE(s.format_id);
    const BlockFormat* f = find_format(s.format_id);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->block_bytes, s.size);
    ASSERT_EQ(f->fields.size(), s.members.size());
    for (std::size_t k = 0; k < s.members.size(); ++k) {
      EXPECT_EQ(f->fields[k].name, s.members[k].name);
      EXPECT_EQ(f->fields[k].offset, s.members[k].offset) << s.members[k].name;
      EXPECT_EQ(f->fields[k].width, s.members[k].size) << s.members[k].name;
    }
  }
}

TEST(FormatRows, FieldsAreContiguousAndCoverTheBlock) {
  for (const BlockFormat& f : all_formats()) {
    SCOPED_TRACE(f.gguf_name);
    if (!f.is_block_format()) {
      EXPECT_TRUE(f.fields.empty());
      continue;
    }
    ASSERT_FALSE(f.fields.empty());
    std::size_t end = 0;
    std::set<std::string_view> names;
    for (const BlockField& field : f.fields) {
      EXPECT_EQ(field.offset, end) << field.name;
      EXPECT_GT(field.width, 0u) << field.name;
      EXPECT_TRUE(names.insert(field.name).second) << field.name << " twice";
      end = field.offset + field.width;
    }
    EXPECT_EQ(end, f.block_bytes);
  }
}

TEST(FormatRows, IndexIsThePositionInAllFormats) {
  for (std::size_t i = 0; i < all_formats().size(); ++i) EXPECT_EQ(all_formats()[i].index, i);
  for (std::size_t i = 0; i < block_formats().size(); ++i) EXPECT_EQ(&block_formats()[i], &all_formats()[i]);
}

// Offsets, widths and kinds typed from the specification's layout tables (§5-§10), independently
// of format_rows.def.
TEST(FormatRows, FieldsSitWhereTheSpecPutsThem) {
  using K = FieldKind;
  const struct {
    const char* format;
    std::string_view field;
    unsigned offset, width;
    FieldKind kind;
  } cases[] = {
      {"gguf:q4_0", "d", 0, 2, K::Fp16Scale},      {"gguf:q4_1", "m", 2, 2, K::Fp16Scale},
      {"gguf:q5_0", "qs", 6, 16, K::Bytes},        {"gguf:q8_1", "s", 2, 2, K::Fp16Sum},
      {"gguf:q2_k", "d", 80, 2, K::Fp16Scale},     {"gguf:q2_k", "dmin", 82, 2, K::Fp16Scale},
      {"gguf:q3_k", "scales", 96, 12, K::Bytes},   {"gguf:q3_k", "d", 108, 2, K::Fp16Scale},
      {"gguf:q5_k", "qs", 48, 128, K::Bytes},      {"gguf:q6_k", "scales", 192, 16, K::Bytes},
      {"gguf:q6_k", "d", 208, 2, K::Fp16Scale},    {"gguf:q8_k", "d", 0, 4, K::Fp32Scale},
      {"gguf:q8_k", "bsums", 260, 32, K::I16Sums}, {"gguf:iq2_s", "scales", 74, 8, K::Bytes},
      {"gguf:iq3_s", "scales", 106, 4, K::Bytes},  {"gguf:iq1_m", "scales", 48, 8, K::Iq1mScales},
      {"gguf:iq4_xs", "qs", 8, 128, K::Bytes},     {"gguf:tq1_0", "qh", 48, 4, K::Bytes},
      {"gguf:tq1_0", "d", 52, 2, K::Fp16Scale},    {"gguf:tq2_0", "d", 64, 2, K::Fp16Scale},
      {"gguf:mxfp4", "e", 0, 1, K::E8M0Scale},     {"gguf:mxfp4", "qs", 1, 16, K::Bytes},
      {"gguf:nvfp4", "d", 0, 4, K::UE4M3Scales},   {"gguf:nvfp4", "qs", 4, 32, K::Bytes},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.format) + " " + std::string(c.field));
    const BlockFormat* f = find_format(c.format);
    ASSERT_NE(f, nullptr);
    const BlockField* field = nullptr;
    for (const BlockField& x : f->fields)
      if (x.name == c.field) field = &x;
    ASSERT_NE(field, nullptr);
    EXPECT_EQ(field->offset, c.offset);
    EXPECT_EQ(field->width, c.width);
    EXPECT_EQ(field->kind, c.kind) << "kind " << static_cast<int>(field->kind);
  }
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
