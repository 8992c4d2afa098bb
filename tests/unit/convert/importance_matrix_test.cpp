// Importance matrices: both of llama-imatrix's formats read as llama-quantize reads them (weights
// = sums / count per matrix, 1 where a count is 0; .dat values / ncall), and a catalogue of
// malformed files, each refused with one line naming the file and what was expected.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "gguf_builder.hpp"
#include "onnxq/convert/importance_matrix.hpp"
#include "onnxq/core/error.hpp"

namespace onnxq {
namespace {

using testing::BuilderTensor;
using testing::GgufBuilder;

std::span<const std::byte> as_bytes(const std::vector<std::uint8_t>& v) {
  return std::as_bytes(std::span(v.data(), v.size()));
}

std::vector<std::uint8_t> floats(std::initializer_list<float> values) {
  std::vector<std::uint8_t> out(values.size() * 4);
  std::memcpy(out.data(), values.begin(), out.size());
  return out;
}

// A .dat file written field by field.
struct Dat {
  std::vector<std::uint8_t> bytes;
  Dat& i32(std::int32_t v) {
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<std::uint8_t>(static_cast<std::uint32_t>(v) >> (8 * i)));
    return *this;
  }
  Dat& text(const std::string& s) {
    bytes.insert(bytes.end(), s.begin(), s.end());
    return *this;
  }
  Dat& entry(const std::string& name, std::int32_t ncall, std::initializer_list<float> values) {
    i32(static_cast<std::int32_t>(name.size())).text(name).i32(ncall).i32(static_cast<std::int32_t>(values.size()));
    const auto f = floats(values);
    bytes.insert(bytes.end(), f.begin(), f.end());
    return *this;
  }
};

GgufBuilder imatrix_gguf(bool with_keys = true) {
  GgufBuilder b;
  if (with_keys) {
    b.kv("imatrix.datasets", 9, [](testing::GgufBytes& v) {
      v.u32(8);
      v.u64(1);
      v.str("calibration.txt");
    });
    b.kv_u32("imatrix.chunk_count", 10).kv_u32("imatrix.chunk_size", 512);
  }
  return b;
}

void add(GgufBuilder& b, const std::string& name, std::vector<std::uint64_t> ne, std::vector<std::uint8_t> data,
         std::uint32_t type = 0) {
  BuilderTensor t;
  t.name = name;
  t.ne = std::move(ne);
  t.type = type;
  t.data = std::move(data);
  b.tensor(std::move(t));
}

TEST(ImportanceMatrix, GgufWeightsAreSumsOverCountsPerMatrix) {
  GgufBuilder b = imatrix_gguf();
  add(b, "blk.0.ffn_up_exps.weight.in_sum2", {2, 3}, floats({3, 6, 1, 2, 9, 12}));
  add(b, "blk.0.ffn_up_exps.weight.counts", {1, 3}, floats({3, 0, 4}));
  add(b, "blk.0.attn_q.weight.counts", {1, 1}, floats({2}));
  add(b, "blk.0.attn_q.weight.in_sum2", {2, 1}, floats({1, 5}));
  add(b, "something.else", {2}, floats({7, 7}));
  const std::vector<std::uint8_t> file = b.build();
  const ImportanceMatrix m = parse_importance_matrix(as_bytes(file), "w.gguf");
  EXPECT_FALSE(m.legacy);
  ASSERT_EQ(m.entries.size(), 2u);
  ASSERT_NE(m.find("blk.0.ffn_up_exps.weight"), nullptr);
  // Expert 1 saw no input: its weights are 1.
  EXPECT_EQ(*m.find("blk.0.ffn_up_exps.weight"), (std::vector<float>{1, 2, 1, 1, 9.0f / 4, 3}));
  EXPECT_EQ(*m.find("blk.0.attn_q.weight"), (std::vector<float>{0.5f, 2.5f}));
  EXPECT_EQ(m.find("something.else"), nullptr);
}

TEST(ImportanceMatrix, DatValuesOverCallCount) {
  Dat d;
  d.i32(2).entry("a.weight", 4, {2, 6, 1}).entry("b.weight", 0, {5, 7});
  d.i32(100).i32(5).text("wiki.");  // the trailer: last chunk, dataset name
  const ImportanceMatrix m = parse_importance_matrix(as_bytes(d.bytes), "w.dat");
  EXPECT_TRUE(m.legacy);
  ASSERT_EQ(m.entries.size(), 2u);
  EXPECT_EQ(*m.find("a.weight"), (std::vector<float>{0.5f, 1.5f, 0.25f}));
  EXPECT_EQ(*m.find("b.weight"), (std::vector<float>{5, 7}));  // ncall 0: as stored
}

void expect_refused(const std::vector<std::uint8_t>& file, const std::string& name, const std::string& phrase) {
  SCOPED_TRACE(phrase);
  try {
    parse_importance_matrix(as_bytes(file), name);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
    const std::string message = e.what();
    EXPECT_TRUE(message.starts_with(name + ": ")) << message;
    EXPECT_NE(message.find(phrase), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(ImportanceMatrix, MalformedDatFilesAreRefused) {
  expect_refused({}, "w.dat", "offset 0: the entry count needs 4 bytes, 0 remain");
  expect_refused(Dat().i32(0).bytes, "w.dat", "the entry count is 0; expected at least 1");
  expect_refused(Dat().i32(1).i32(-3).bytes, "w.dat", "offset 8: entry 1: a name length of -3");
  expect_refused(Dat().i32(1).i32(1000).text("ab").bytes, "w.dat", "entry 1's name needs 1000 bytes, 2 remain");
  expect_refused(Dat().i32(1).i32(1).text("a").i32(1).i32(0).bytes, "w.dat", "entry 1 ('a'): 0 values");
  expect_refused(Dat().i32(1).i32(1).text("a").i32(1).i32(1 << 30).bytes, "w.dat",
                 "entry 1 ('a')'s values needs 4294967296 bytes, 0 remain");
  expect_refused(Dat().i32(2).entry("a", 1, {1}).bytes, "w.dat", "entry 2's name length needs 4 bytes");
  expect_refused(Dat().i32(2).entry("a", 1, {1}).entry("a", 1, {2}).bytes, "w.dat", "entry 2: 'a' is listed twice");
  expect_refused(Dat().i32(1).entry("a", 1, {std::numeric_limits<float>::infinity()}).bytes, "w.dat",
                 "entry 'a': weight 0 is not finite");
  expect_refused(Dat().i32(1).entry("a", 1, {1}).i32(3).bytes, "w.dat", "the dataset name length needs 4 bytes");
  expect_refused(Dat().i32(1).entry("a", 1, {1}).i32(3).i32(2).text("abc").bytes, "w.dat",
                 "1 bytes after the dataset name; expected the end of the file");
}

TEST(ImportanceMatrix, MalformedGgufFilesAreRefused) {
  {
    GgufBuilder b = imatrix_gguf(false);
    add(b, "a.in_sum2", {2}, floats({1, 1}));
    add(b, "a.counts", {1}, floats({1}));
    expect_refused(b.build(), "w.gguf", "no imatrix.datasets key");
  }
  {
    GgufBuilder b = imatrix_gguf();
    add(b, "a.weight", {2}, floats({1, 1}));
    expect_refused(b.build(), "w.gguf", "no <tensor>.in_sum2 tensor");
  }
  {
    GgufBuilder b = imatrix_gguf();
    add(b, "a.in_sum2", {2}, floats({1, 1}));
    expect_refused(b.build(), "w.gguf", "tensor 'a.in_sum2' has no 'a.counts' beside it");
  }
  {
    GgufBuilder b = imatrix_gguf();
    add(b, "a.counts", {1}, floats({1}));
    expect_refused(b.build(), "w.gguf", "tensor 'a.counts' has no 'a.in_sum2' beside it");
  }
  {
    GgufBuilder b = imatrix_gguf();
    add(b, "a.in_sum2", {2}, {0, 60, 0, 60}, 1);  // F16
    add(b, "a.counts", {1}, floats({1}));
    expect_refused(b.build(), "w.gguf", "tensor 'a.in_sum2' is F16; expected F32");
  }
  {
    GgufBuilder b = imatrix_gguf();
    add(b, "a.in_sum2", {2, 2}, floats({1, 1, 1, 1}));
    add(b, "a.counts", {1, 3}, floats({1, 1, 1}));
    expect_refused(b.build(), "w.gguf", "tensor 'a.counts' has 3 counts; 'a.in_sum2' holds 2 matrices");
  }
  {
    GgufBuilder b = imatrix_gguf();
    add(b, "a.in_sum2", {1, 1, 2}, floats({1, 1}));
    add(b, "a.counts", {1}, floats({1}));
    expect_refused(b.build(), "w.gguf", "has 3 dimensions");
  }
  {
    GgufBuilder b = imatrix_gguf();
    add(b, "a.in_sum2", {2}, floats({1, std::nanf("")}));
    add(b, "a.counts", {1}, floats({1}));
    expect_refused(b.build(), "w.gguf", "entry 'a': weight 1 is not finite");
  }
}

}  // namespace
}  // namespace onnxq
