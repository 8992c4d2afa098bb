// The parser's two ways of reporting: GgufModel::open's stops at the first problem; a listener
// that returns goes on where the next record can still be found (what `onnxq check` builds on).
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gguf/parser.hpp"
#include "gguf_builder.hpp"
#include "onnxq/core/error.hpp"

namespace onnxq {
namespace {

using gguf_detail::ParseListener;
using gguf_detail::Problem;
using testing::GgufBuilder;
using testing::GgufBytes;

std::vector<std::byte> bytes_of(const std::vector<std::uint8_t>& v) {
  std::vector<std::byte> b(v.size());
  std::memcpy(b.data(), v.data(), v.size());
  return b;
}

// Every problem, and (with records) every record the parser shows, as one line each.
class Recorder : public ParseListener {
 public:
  explicit Recorder(bool records = false) : records_(records) {}
  void problem(const Problem& p) override {
    problems.push_back(p);
    log.push_back(std::string("problem ") + p.code + " " + std::to_string(p.offset));
  }
  bool wants_records() const override { return records_; }
  void magic(bool fugg) override { log.push_back(fugg ? "magic FUGG" : "magic GGUF"); }
  void version(bool big_endian) override { log.push_back(big_endian ? "version be" : "version le"); }
  void key(std::uint64_t offset, std::string_view key) override {
    log.push_back("key " + std::string(key) + " " + std::to_string(offset));
  }
  void string(std::uint64_t, std::string_view text, std::uint64_t element) override {
    log.push_back("string " + std::string(text) + " " + std::to_string(element));
  }
  void array(std::uint64_t, GgufType type, std::uint64_t count, int depth) override {
    log.push_back("array " + std::string(gguf_type_name(type)) + " " + std::to_string(count) + " " +
                  std::to_string(depth));
  }
  void key_value(const GgufKeyValue& kv) override { log.push_back("kv " + std::string(kv.key)); }
  void alignment(const GgufKeyValue& kv) override { log.push_back("alignment " + std::to_string(kv.value.raw_bits())); }
  void tensor_name(std::uint64_t, std::string_view name) override { log.push_back("tensor " + std::string(name)); }
  void distinct_tensor_name(std::uint64_t, std::string_view name) override {
    log.push_back("distinct " + std::string(name));
  }
  void data_start(std::uint64_t, std::uint64_t data_offset) override {
    log.push_back("data " + std::to_string(data_offset));
  }
  void tensors_placed(const GgufFile& shard) override {
    log.push_back("placed " + std::to_string(shard.tensors.size()));
  }

  std::vector<Problem> problems;
  std::vector<std::string> log;

 private:
  bool records_;
};

std::string open_error(const std::vector<std::byte>& bytes) {
  try {
    GgufParser::parse(bytes, "t.gguf", bytes.size());
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
    return e.what();
  }
  return "";
}

// GgufModel::open's message for a problem: the file, the offset, the reason.
std::string as_open_error(const Problem& p) {
  return "t.gguf: " + (p.reason_has_offset ? "offset " + std::to_string(p.offset) + ": " : std::string()) + p.reason;
}

TEST(ParseListener, EveryProblemInFileOrderAndTheParseGoesOn) {
  GgufBuilder b;
  b.kv_u32("", 1).kv_u32("a", 2).kv_u32("a", 3).kv_str("general.name", "x");
  b.tensor("t", {32}, 4);      // removed ggml type: its size is unknown
  b.tensor("u", {4}, 0, 8);    // unaligned offset
  b.tensor("t", {4}, 0);       // duplicate name
  b.tensor("v", {48, 2}, 12);  // ne0 not a multiple of 256
  const auto bytes = bytes_of(b.build());
  Recorder rec;
  GgufFile shard;
  EXPECT_TRUE(GgufParser::parse(bytes, "t.gguf", rec, shard));
  std::vector<std::string> codes;
  for (const Problem& p : rec.problems) {
    codes.push_back(p.code);
    EXPECT_FALSE(p.fatal) << p.code;
  }
  EXPECT_EQ(codes, (std::vector<std::string>{"empty-key", "duplicate-key", "bad-tensor-type", "unaligned-offset",
                                             "duplicate-tensor", "not-block-multiple"}));
  EXPECT_EQ(rec.problems[1].key, "a");
  EXPECT_EQ(rec.problems[2].tensor, "t");
  for (std::size_t i = 1; i < rec.problems.size(); ++i) EXPECT_LT(rec.problems[i - 1].offset, rec.problems[i].offset);
  // Every record is there, and the tensors whose size is known are placed.
  ASSERT_EQ(shard.metadata.size(), 4u);
  EXPECT_EQ(shard.metadata[3].value.as_string(), "x");
  ASSERT_EQ(shard.tensors.size(), 4u);
  EXPECT_EQ(shard.tensors[0].format, nullptr);
  EXPECT_EQ(shard.tensors[1].file_offset, shard.data_offset + 8);
  // GgufModel::open's error is the first of them.
  EXPECT_EQ(open_error(bytes), as_open_error(rec.problems.front()));
}

TEST(ParseListener, AProblemThatHidesTheNextRecordEndsTheParse) {
  GgufBuilder b;
  b.kv_u32("first", 1);
  b.kv("second", 13, [](GgufBytes& w) { w.u32(0); });  // value type 13: its size is unknown
  b.kv_u32("third", 3);
  b.tensor("t", {4}, 0);
  const auto bytes = bytes_of(b.build());
  Recorder rec;
  GgufFile shard;
  EXPECT_FALSE(GgufParser::parse(bytes, "t.gguf", rec, shard));
  ASSERT_EQ(rec.problems.size(), 1u);
  EXPECT_STREQ(rec.problems[0].code, "bad-value-type");
  EXPECT_TRUE(rec.problems[0].fatal);
  EXPECT_EQ(rec.problems[0].key, "second");
  ASSERT_EQ(shard.metadata.size(), 1u);  // the records read completely
  EXPECT_TRUE(shard.tensors.empty());
  EXPECT_EQ(open_error(bytes), as_open_error(rec.problems[0]));
}

TEST(ParseListener, TruncationInsideAValueNamesItsKey) {
  GgufBuilder b;
  b.kv_str("general.name", "a long enough name");
  auto file = b.build();
  file.resize(24 + 8 + 12 + 4 + 8 + 3);  // three bytes of the string's 18
  const auto bytes = bytes_of(file);
  Recorder rec;
  GgufFile shard;
  EXPECT_FALSE(GgufParser::parse(bytes, "t.gguf", rec, shard));
  ASSERT_EQ(rec.problems.size(), 1u);
  EXPECT_STREQ(rec.problems[0].code, "truncated");
  EXPECT_EQ(rec.problems[0].key, "general.name");
  EXPECT_EQ(rec.problems[0].offset, 48u);
  EXPECT_EQ(open_error(bytes), "t.gguf: offset 48: string value length 18 exceeds the 3 bytes left in the file");
}

TEST(ParseListener, RecordsInFileOrderOnlyWhenAsked) {
  GgufBuilder b;
  b.kv("tokens", 9, [](GgufBytes& w) {
    w.u32(8);
    w.u64(2);
    w.str("x");
    w.str("y");
  });
  b.kv_u32("general.alignment", 64);
  b.alignment = 64;
  b.tensor("t", {4}, 0).tensor("t2", {4}, 0);
  const auto bytes = bytes_of(b.build());
  Recorder rec(true);
  GgufFile shard;
  ASSERT_TRUE(GgufParser::parse(bytes, "t.gguf", rec, shard));
  EXPECT_EQ(rec.log, (std::vector<std::string>{"magic GGUF", "version le", "key tokens 24", "array str 2 0",
                                               "string x 0", "string y 1", "kv tokens", "key general.alignment 72",
                                               "kv general.alignment", "alignment 64", "tensor t", "distinct t",
                                               "tensor t2", "distinct t2", "data 192", "placed 2"}));
  Recorder quiet(false);
  GgufFile again;
  ASSERT_TRUE(GgufParser::parse(bytes, "t.gguf", quiet, again));
  EXPECT_TRUE(quiet.log.empty());
}

// Over every prefix of a real file and every bit flip of its header, GgufModel::open's error is
// the first problem a listener hears: the two ways report from the same code.
TEST(ParseListener, OpensErrorIsTheFirstProblemOnEveryPrefixAndBitFlip) {
  std::ifstream in(std::string(ONNXQ_TESTDATA_DIR) + "/zoo.gguf", std::ios::binary);
  const std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> zoo(chars.size());
  std::memcpy(zoo.data(), chars.data(), chars.size());
  ASSERT_GT(zoo.size(), 1000u);
  const std::uint64_t header = GgufParser::parse(zoo, "t.gguf", zoo.size()).data_offset;
  std::size_t rejected = 0;
  auto compare = [&](const std::vector<std::byte>& bytes, const std::string& what) {
    Recorder rec;
    GgufFile shard;
    GgufParser::parse(bytes, "t.gguf", rec, shard);
    const std::string error = open_error(bytes);
    if (rec.problems.empty()) {
      EXPECT_EQ(error, "") << what;
      return;
    }
    ++rejected;
    EXPECT_EQ(error, as_open_error(rec.problems.front())) << what;
  };
  for (std::size_t n = 0; n <= header; ++n)
    compare(std::vector<std::byte>(zoo.begin(), zoo.begin() + static_cast<std::ptrdiff_t>(n)),
            "prefix " + std::to_string(n));
  for (std::size_t i = 0; i < header; ++i)
    for (int bit : {0, 5}) {
      std::vector<std::byte> flipped = zoo;
      flipped[i] ^= std::byte(1u << bit);
      compare(flipped, "flip of bit " + std::to_string(bit) + " at " + std::to_string(i));
    }
  EXPECT_GT(rejected, header);
}

}  // namespace
}  // namespace onnxq
