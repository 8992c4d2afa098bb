// Metadata values as the front ends show them (onnxq meta, its --json and --key): one line with
// strings quoted and escaped, the value as stored for scripts, JSON with 64-bit integers exact.
#include "onnxq/gguf/metadata_text.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gguf_builder.hpp"

namespace onnxq {
namespace {

using testing::GgufBuilder;
using testing::GgufBytes;

std::vector<std::uint8_t> sample() {
  GgufBuilder b;
  b.kv("u64", 10, [](GgufBytes& w) { w.u64(0xFFFFFFFFFFFFFFFF); });
  b.kv("i8", 1, [](GgufBytes& w) { w.u8(0x80); });
  b.kv("f32", 6, [](GgufBytes& w) { w.u32(0x3DCCCCCD); });  // 0.1f
  b.kv("inf", 12, [](GgufBytes& w) { w.u64(0xFFF0000000000000); });
  b.kv("bool", 7, [](GgufBytes& w) { w.u8(1); });
  b.kv_str("str", "say \"hi\"\n\\ \x1b caf\xc3\xa9");
  b.kv_str("long", std::string(81, 'x'));
  b.kv("strs", 9, [](GgufBytes& w) {
    w.u32(8);
    w.u64(3);
    w.str("a\nb");
    w.str("");
    w.str("c");
  });
  b.kv("nested", 9, [](GgufBytes& w) {
    w.u32(9);
    w.u64(2);
    w.u32(4);
    w.u64(1);
    w.u32(7);
    w.u32(8);
    w.u64(0);
  });
  return b.build();
}

class MetadataText : public ::testing::Test {
 protected:
  std::vector<std::uint8_t> bytes_ = sample();
  GgufModel model_ = testing::parse_gguf(bytes_);
  const GgufValue& value(std::string_view key) { return *model_.find_metadata(key); }
};

TEST_F(MetadataText, OneLine) {
  EXPECT_EQ(gguf_value_text(value("u64"), 8), "18446744073709551615");
  EXPECT_EQ(gguf_value_text(value("i8"), 8), "-128");
  EXPECT_EQ(gguf_value_text(value("f32"), 8), "0.1");
  EXPECT_EQ(gguf_value_text(value("inf"), 8), "-inf");
  EXPECT_EQ(gguf_value_text(value("bool"), 8), "true");
  EXPECT_EQ(gguf_value_text(value("str"), 0), "\"say \\\"hi\\\"\\n\\\\ \\x1b caf\xc3\xa9\"");
  EXPECT_EQ(gguf_value_text(value("long"), 8), "\"" + std::string(80, 'x') + "...\"");
  EXPECT_EQ(gguf_value_text(value("long"), 0), "\"" + std::string(81, 'x') + "\"");
  EXPECT_EQ(gguf_value_text(value("strs"), 2), "[\"a\\nb\", \"\", ...]");
  EXPECT_EQ(gguf_value_text(value("strs"), 0), "[\"a\\nb\", \"\", \"c\"]");
  EXPECT_EQ(gguf_value_text(value("nested"), 0), "[[7], []]");
  EXPECT_EQ(gguf_value_type_text(value("strs")), "arr[str,3]");
  EXPECT_EQ(gguf_value_type_text(value("nested")), "arr[arr,2]");
  EXPECT_EQ(gguf_value_type_text(value("f32")), "f32");
}

TEST_F(MetadataText, AsStoredForScripts) {
  EXPECT_EQ(gguf_value_raw(value("str"), false), "say \"hi\"\n\\ \x1b caf\xc3\xa9");
  EXPECT_EQ(gguf_value_raw(value("str"), true), "say \"hi\"\\n\\\\ \\x1b caf\xc3\xa9");
  EXPECT_EQ(gguf_value_raw(value("strs"), false), "a\\nb\n\nc");
  EXPECT_EQ(gguf_value_raw(value("nested"), false), "[7]\n[]");
  EXPECT_EQ(gguf_value_raw(value("u64"), true), "18446744073709551615");
}

TEST_F(MetadataText, Json) {
  std::vector<const GgufKeyValue*> records;
  for (const GgufKeyValue& kv : model_.metadata()) records.push_back(&kv);
  const auto by_key = nlohmann::ordered_json::parse(gguf_metadata_json(records, true));
  EXPECT_EQ(by_key["u64"].get<std::uint64_t>(), 0xFFFFFFFFFFFFFFFF);
  EXPECT_EQ(by_key["i8"], -128);
  EXPECT_EQ(by_key["f32"].get<double>(), static_cast<double>(0.1f));
  EXPECT_EQ(by_key["inf"], "-inf");
  EXPECT_EQ(by_key["str"], "say \"hi\"\n\\ \x1b caf\xc3\xa9");
  EXPECT_EQ(by_key["strs"], nlohmann::ordered_json({"a\nb", "", "c"}));
  EXPECT_EQ(by_key.begin().key(), "u64");  // in the records' order
  const auto rows = nlohmann::ordered_json::parse(gguf_metadata_json(std::span(records).subspan(7), false));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].dump(), R"({"key":"strs","type":"arr","element_type":"str","count":3,"value":["a\nb","","c"]})");
  EXPECT_EQ(rows[1].dump(),
            R"({"key":"nested","type":"arr","element_type":"arr","count":2,)"
            R"("elements":[{"element_type":"u32","count":1},{"element_type":"str","count":0}],"value":[[7],[]]})");
  // Bytes that are not UTF-8 are replaced, not thrown on.
  GgufBuilder b;
  b.kv_str("bad", "\xff");
  const auto bad_bytes = b.build();
  const GgufModel bad = testing::parse_gguf(bad_bytes);
  const GgufKeyValue* kv = &bad.metadata()[0];
  EXPECT_EQ(nlohmann::json::parse(gguf_metadata_json(std::span(&kv, 1), true))["bad"], "\xef\xbf\xbd");
}

}  // namespace
}  // namespace onnxq
