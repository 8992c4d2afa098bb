// The writer applies the rule book: each file the reader or ggml's reader would refuse is refused
// by gguf_plan with a one-line error naming the key or the tensor; and the serializer, run into a
// counting sink, sizes exactly the header it writes.
#include <gtest/gtest.h>

#include "onnxq/core/error.hpp"
#include "onnxq/gguf/layout.hpp"
#include "onnxq/gguf/metadata.hpp"
#include "onnxq/gguf/rules.hpp"
#include "onnxq/gguf/writer.hpp"

namespace onnxq {
namespace {

void expect_refused(const GgufMetadata& md, std::span<const GgufWriterTensor> tensors, const std::string& message) {
  try {
    gguf_plan(md, tensors, {});
    ADD_FAILURE() << "no error; expected: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_EQ(std::string(e.what()), message);
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
}

GgufMetadata one(std::string key, GgufOwnedValue value) {
  GgufMetadata md;
  md.set("general.name", GgufOwnedValue::string("m"));
  md.set(key, std::move(value));
  return md;
}

TEST(WriterRules, KeysTheReadersRefuse) {
  expect_refused(one("", GgufOwnedValue::u8(1)), {}, "metadata key 1 is empty, expected at least 1 byte");
  const std::string long_key(kGgufSpecMaxKeyBytes + 1, 'k');
  expect_refused(one(long_key, GgufOwnedValue::u8(1)), {},
                 "metadata key 'kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk'... is 65536 bytes long, more than the GGUF "
                 "specification's limit of 65535");
  EXPECT_NO_THROW(gguf_plan(one(std::string(kGgufSpecMaxKeyBytes, 'k'), GgufOwnedValue::u8(1)), {}, {}));
  // The specification's ASCII keys: the first byte of 0x80 or more is named, the key escaped.
  expect_refused(one("na\xefve\x01\\", GgufOwnedValue::u8(1)), {},
                 "metadata key 1 'na\\xefve\\x01\\\\' is not ASCII (byte 2), as the GGUF specification requires");
  expect_refused(one("\x80", GgufOwnedValue::u8(1)), {},
                 "metadata key 1 '\\x80' is not ASCII (byte 0), as the GGUF specification requires");
  EXPECT_NO_THROW(gguf_plan(one("all.ascii\x7f~ \x01", GgufOwnedValue::u8(1)), {}, {}));
  // A duplicate cannot be built: renaming onto a key that exists is refused.
  GgufMetadata md = one("a", GgufOwnedValue::u8(1));
  EXPECT_THROW(md.rename("a", "general.name"), Error);
}

TEST(WriterRules, StringsPastGgmlsLimit) {
  expect_refused(one("big", GgufOwnedValue::string(std::string(kGgmlMaxStringBytes + 1, 'x'))), {},
                 "metadata key 'big' holds a string of 67108865 bytes, more than ggml's limit of 67108864");
  expect_refused(one("arr", GgufOwnedValue::array(GgufType::String,
                                                  {GgufOwnedValue::string(std::string(kGgmlMaxStringBytes + 1, 'x'))})),
                 {}, "metadata key 'arr' holds a string of 67108865 bytes, more than ggml's limit of 67108864");
}

// ggml's reader refuses an array of arrays, at any depth: the writer names the key. (onnxq's reader
// takes them: owned_metadata_test reads and copies them.)
TEST(WriterRules, ArraysOfArrays) {
  const auto inner = GgufOwnedValue::array(GgufType::Int32, {GgufOwnedValue::i32(1)});
  expect_refused(one("nest", GgufOwnedValue::array(GgufType::Array, {inner})), {},
                 "metadata key 'nest' holds an array of arrays, which ggml's reader refuses");
  expect_refused(one("empty.nest", GgufOwnedValue::array(GgufType::Array, {})), {},
                 "metadata key 'empty.nest' holds an array of arrays, which ggml's reader refuses");
  EXPECT_NO_THROW(gguf_plan(one("flat", inner), {}, {}));
}

TEST(WriterRules, Alignments) {
  expect_refused(one("general.alignment", GgufOwnedValue::u32(48)), {},
                 "general.alignment is 48, expected a power of two");
  expect_refused(one("general.alignment", GgufOwnedValue::u32(0)), {},
                 "general.alignment is 0, expected a power of two");
  expect_refused(one("general.alignment", GgufOwnedValue::u64(32)), {}, "general.alignment has type u64, expected u32");
  expect_refused(one("general.alignment", GgufOwnedValue::u32(2u << 20)), {},
                 "general.alignment is 2097152, more than ggml's limit of 1048576");
  EXPECT_EQ(gguf_plan(one("general.alignment", GgufOwnedValue::u32(1u << 20)), {}, {}).alignment, 1u << 20);
}

TEST(WriterRules, TensorsTheReadersRefuse) {
  const BlockFormat& f32 = *find_format_by_ggml_type(0);
  GgufWriterTensor t = gguf_produced_tensor("t", {3}, f32, [](GgufTensorSink&) {});
  const GgufMetadata md = one("a", GgufOwnedValue::u8(1));
  auto refused = [&](GgufWriterTensor bad, const std::string& message) {
    expect_refused(md, std::span(&bad, 1), message);
  };
  GgufWriterTensor named = t;
  named.name = std::string(64, 'n');
  refused(named, "tensor '" + named.name +
                     "' name is 64 bytes long, more than ggml's limit of 63 (GGML_MAX_NAME 64 with its NUL)");
  GgufWriterTensor sized = t;
  sized.byte_size = 11;
  refused(sized, "tensor 't': 11 bytes do not fit its shape and type F32 (12 bytes)");
  GgufWriterTensor shapeless = t;
  shapeless.ne = {};
  refused(shapeless, "tensor 't' has 0 dimensions, expected 1..4");
  GgufWriterTensor removed = t;
  removed.format = nullptr;
  removed.ggml_type = 4;  // Q4_2, removed from ggml
  refused(removed, "tensor 't' has removed ggml type 4, expected one of the types `onnxq formats` lists");
  GgufWriterTensor both = t;
  both.source = reinterpret_cast<const GgufFile*>(&md);  // never read: refused first
  refused(both, "tensor 't' has both a source and a producer");
  std::vector<GgufWriterTensor> twice{t, t};
  expect_refused(md, twice, "tensor 't' appears twice");
}

// The header's size as the split planner gets it equals the header the writer lays out.
TEST(WriterRules, TheSerializerCountsTheHeaderItWrites) {
  const BlockFormat& q8 = *find_format_by_ggml_type(8);
  GgufMetadata md =
      one("arr", GgufOwnedValue::array(GgufType::String, {GgufOwnedValue::string("ab"), GgufOwnedValue::string("")}));
  md.set("general.alignment", GgufOwnedValue::u32(1));
  std::vector<GgufWriterTensor> tensors{gguf_produced_tensor("a", {32, 2}, q8, [](GgufTensorSink&) {}),
                                        gguf_produced_tensor("bb", {64, 1, 3}, q8, [](GgufTensorSink&) {})};
  std::uint64_t counted = gguf_metadata_bytes(md);
  for (const auto& t : tensors) counted += gguf_tensor_info_bytes(t);
  const GgufLayoutPlan plan = gguf_plan(md, tensors, {});
  EXPECT_EQ(plan.data_offset, counted);  // alignment 1: no padding
  // magic, version, 2 counts; 3 records; 2 infos of name, n_dims, dims, type, offset.
  EXPECT_EQ(counted, 24u + (8 + 12 + 4 + 8 + 1) + (8 + 3 + 4 + 4 + 8 + 10 + 8) + (8 + 17 + 4 + 4) +
                         (8 + 1 + 4 + 16 + 4 + 8) + (8 + 2 + 4 + 24 + 4 + 8));
}

}  // namespace
}  // namespace onnxq
