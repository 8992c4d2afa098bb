// GgufOwnedValue / GgufMetadata: every value type and nested arrays copied from a parsed file,
// in either byte order, and edits that keep the records' order.
#include <gtest/gtest.h>

#include <bit>
#include <limits>

#include "gguf_builder.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/gguf/metadata.hpp"

namespace onnxq {
namespace {

using testing::GgufBuilder;
using testing::GgufBytes;
using testing::parse_gguf;
using V = GgufOwnedValue;

// One record of every type, arrays of scalars, of strings, of arrays (two levels) and an empty one.
std::vector<std::uint8_t> every_type_file(bool big_endian) {
  GgufBuilder b;
  b.big_endian = big_endian;
  b.kv("u8", 0, [](GgufBytes& w) { w.u8(0xFE); });
  b.kv("i8", 1, [](GgufBytes& w) { w.u8(0x80); });
  b.kv("u16", 2, [](GgufBytes& w) { w.u16(0xBEEF); });
  b.kv("i16", 3, [](GgufBytes& w) { w.u16(0xFFFE); });
  b.kv("u32", 4, [](GgufBytes& w) { w.u32(0xDEADBEEF); });
  b.kv("i32", 5, [](GgufBytes& w) { w.u32(0x80000000); });
  b.kv("f32", 6, [](GgufBytes& w) { w.u32(0x7FC00001); });  // a NaN with a payload
  b.kv("bool", 7, [](GgufBytes& w) { w.u8(1); });
  b.kv("str", 8, [](GgufBytes& w) { w.str(std::string("a\0b", 3)); });
  b.kv("u64", 10, [](GgufBytes& w) { w.u64(0xFFFFFFFFFFFFFFFF); });
  b.kv("i64", 11, [](GgufBytes& w) { w.u64(static_cast<std::uint64_t>(-5)); });
  b.kv("f64", 12, [](GgufBytes& w) { w.u64(std::bit_cast<std::uint64_t>(-0.0)); });
  b.kv("arr.i16", 9, [](GgufBytes& w) {
    w.u32(3);
    w.u64(2);
    w.u16(1);
    w.u16(0x8000);
  });
  b.kv("arr.str", 9, [](GgufBytes& w) {
    w.u32(8);
    w.u64(2);
    w.str("one");
    w.str("");
  });
  b.kv("arr.empty", 9, [](GgufBytes& w) {
    w.u32(12);
    w.u64(0);
  });
  b.kv("arr.nested", 9, [](GgufBytes& w) {
    w.u32(9);  // arrays of arrays of f32
    w.u64(2);
    w.u32(9);
    w.u64(1);
    w.u32(6);
    w.u64(2);
    w.u32(0x3F800000);
    w.u32(0xFF800000);
    w.u32(9);
    w.u64(0);
  });
  return b.build();
}

GgufMetadata every_type_expected() {
  GgufMetadata m;
  m.set("u8", V::u8(0xFE));
  m.set("i8", V::i8(-128));
  m.set("u16", V::u16(0xBEEF));
  m.set("i16", V::i16(-2));
  m.set("u32", V::u32(0xDEADBEEF));
  m.set("i32", V::i32(std::numeric_limits<std::int32_t>::min()));
  m.set("f32", V::scalar(GgufType::Float32, 0x7FC00001));
  m.set("bool", V::boolean(true));
  m.set("str", V::string(std::string("a\0b", 3)));
  m.set("u64", V::u64(0xFFFFFFFFFFFFFFFF));
  m.set("i64", V::i64(-5));
  m.set("f64", V::f64(-0.0));
  m.set("arr.i16", V::array(GgufType::Int16, {V::i16(1), V::i16(-32768)}));
  m.set("arr.str", V::array(GgufType::String, {V::string("one"), V::string("")}));
  m.set("arr.empty", V::array(GgufType::Float64, {}));
  m.set("arr.nested",
        V::array(GgufType::Array,
                 {V::array(GgufType::Array, {V::array(GgufType::Float32, {V::f32(1.0f), V::f32(-INFINITY)})}),
                  V::array(GgufType::Array, {})}));
  return m;
}

TEST(GgufOwnedMetadata, EveryTypeAndNestedArraysCopyFromTheViews) {
  const GgufMetadata expected = every_type_expected();
  for (const bool big_endian : {false, true}) {
    SCOPED_TRACE(big_endian ? "big-endian" : "little-endian");
    const std::vector<std::uint8_t> bytes = every_type_file(big_endian);
    const GgufModel file = parse_gguf(bytes);
    const GgufMetadata owned = GgufMetadata::from_records(file.metadata());
    ASSERT_EQ(owned.size(), expected.size());
    for (std::size_t i = 0; i < owned.size(); ++i) {
      SCOPED_TRACE(expected.entries()[i].key);
      EXPECT_EQ(owned.entries()[i].key, expected.entries()[i].key);
      EXPECT_TRUE(owned.entries()[i].value == expected.entries()[i].value);
    }
    EXPECT_TRUE(owned == expected);
  }
}

TEST(GgufOwnedMetadata, ValuesCompareByTypeAndBits) {
  EXPECT_FALSE(V::u16(1) == V::i16(1));
  EXPECT_FALSE(V::f64(0.0) == V::f64(-0.0));
  EXPECT_TRUE(V::f32(NAN) == V::f32(NAN));
  EXPECT_FALSE(V::array(GgufType::UInt8, {}) == V::array(GgufType::Int8, {}));
  EXPECT_FALSE(V::string("a") == V::string("b"));
  EXPECT_THROW(V::array(GgufType::UInt8, {V::i8(1)}), Error);
  EXPECT_THROW(V::scalar(GgufType::UInt8, 0x100), Error);
  EXPECT_THROW(V::scalar(GgufType::String, 0), Error);
  EXPECT_THROW(V::u8(1).text(), Error);
  EXPECT_EQ(V::string("x").text(), "x");
  EXPECT_EQ(V::array(GgufType::Bool, {V::boolean(false)}).elements().size(), 1u);
}

std::vector<std::string> keys(const GgufMetadata& m) {
  std::vector<std::string> out;
  for (const auto& e : m.entries()) out.push_back(e.key);
  return out;
}

TEST(GgufOwnedMetadata, EditsKeepTheOrder) {
  GgufMetadata m;
  m.set("a", V::u32(1));
  m.set("b", V::string("two"));
  m.set("c", V::boolean(true));
  m.set("a", V::i64(-1));  // replaced in place
  EXPECT_EQ(keys(m), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(*m.find("a") == V::i64(-1));
  m.rename("b", "bee");
  EXPECT_EQ(keys(m), (std::vector<std::string>{"a", "bee", "c"}));
  EXPECT_TRUE(*m.find("bee") == V::string("two"));
  EXPECT_EQ(m.find("b"), nullptr);
  EXPECT_THROW(m.rename("a", "c"), Error);
  EXPECT_THROW(m.rename("zz", "y"), Error);
  EXPECT_TRUE(m.remove("a"));
  EXPECT_FALSE(m.remove("a"));
  m.set("a", V::u8(0));
  EXPECT_EQ(keys(m), (std::vector<std::string>{"bee", "c", "a"}));
}

TEST(GgufOwnedMetadata, AnEditedCopyDiffersFromItsSource) {
  const std::vector<std::uint8_t> bytes = every_type_file(false);
  const GgufModel file = parse_gguf(bytes);
  const GgufMetadata source = GgufMetadata::from_records(file.metadata());
  GgufMetadata edited = source;
  EXPECT_TRUE(edited == source);
  edited.set("u8", V::u8(0xFD));
  EXPECT_FALSE(edited == source);
}

}  // namespace
}  // namespace onnxq
