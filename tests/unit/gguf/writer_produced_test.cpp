// Produced tensors: a tensor of a new type and shape whose bytes a producer writes into the output
// at its offset, beside tensors copied from a source. A known pattern written in odd pieces reads
// back byte for byte (swapped by blocks into a big-endian file); a producer that fails halfway, or
// writes too few or too many bytes, leaves nothing and the file it would replace intact.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "../io/scratch_dir.hpp"
#include "gguf_builder.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/gguf/metadata.hpp"
#include "onnxq/gguf/model.hpp"
#include "onnxq/gguf/writer.hpp"

namespace onnxq {
namespace {

using testing::BuilderTensor;
using testing::GgufBuilder;
using testing::ScratchDir;

std::vector<std::byte> pattern(std::size_t n, unsigned seed) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((seed + 31 * i + i / 251) & 0xff);
  return v;
}

// A producer that writes `bytes` in pieces of `piece` bytes, and throws after `fail_after` if set.
GgufTensorProducer writes(std::vector<std::byte> bytes, std::size_t piece,
                          std::optional<std::size_t> fail_after = std::nullopt) {
  return [bytes = std::move(bytes), piece, fail_after](GgufTensorSink& sink) {
    for (std::size_t at = 0; at < bytes.size(); at += piece) {
      if (fail_after && at >= *fail_after) throw std::runtime_error("the quantizer failed");
      sink.write(std::span(bytes).subspan(at, std::min(piece, bytes.size() - at)));
    }
  };
}

std::string source_model(const ScratchDir& dir) {
  GgufBuilder b;
  b.kv_str("general.name", "source");
  BuilderTensor t;
  t.name = "copied.f16";
  t.ne = {5};
  t.type = 1;
  t.data = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  b.tensor(std::move(t));
  const auto bytes = b.build();
  testing::write_text(dir.file("in.gguf"), std::string(bytes.begin(), bytes.end()));
  return dir.file("in.gguf");
}

std::vector<std::byte> stored(const GgufModel& m, std::string_view name) {
  const auto s = m.tensor_bytes(*m.find_tensor(name));
  return {s.begin(), s.end()};
}

TEST(WriterProduced, APatternWrittenInOddPiecesReadsBack) {
  for (const bool big : {false, true}) {
    SCOPED_TRACE(big ? "big-endian" : "little-endian");
    ScratchDir dir("produced_pattern");
    const GgufModel in = GgufModel::open(source_model(dir));
    const BlockFormat& f32 = *find_format_by_ggml_type(0);
    const BlockFormat& q4_0 = *find_format_by_ggml_type(2);
    const auto a = pattern(4 * 64 * 3, 1), q = pattern(18 * 2 * 3, 2);
    std::vector<GgufWriterTensor> tensors;
    tensors.push_back(gguf_produced_tensor("new.f32", {64, 3}, f32, writes(a, 7)));
    tensors.push_back(gguf_writer_tensor(in, *in.find_tensor("copied.f16")));
    tensors.push_back(gguf_produced_tensor("new.q4_0", {64, 3}, q4_0, writes(q, 1000)));
    EXPECT_EQ(tensors[2].byte_size, q.size());
    GgufWriteOptions options;
    options.big_endian = big;
    const GgufMetadata md = GgufMetadata::from_records(in.metadata());
    const GgufLayoutPlan plan = gguf_plan(md, tensors, options);
    AtomicFile out = AtomicFile::create(dir.file("out.gguf"));
    const GgufWriteStats stats = gguf_write(out, plan, tensors, options);
    out.commit();
    EXPECT_EQ(stats.produced, a.size() + q.size());

    const GgufModel back = GgufModel::open(dir.file("out.gguf"));
    ASSERT_EQ(back.tensors().size(), 3u);
    EXPECT_EQ(back.find_tensor("new.q4_0")->ggml_type, 2u);
    EXPECT_EQ(back.find_tensor("new.f32")->ne, (std::vector<std::uint64_t>{64, 3}));
    auto expect_a = a, expect_q = q;
    if (big) {  // each f32 reversed; each q4_0 block's f16 scale reversed, its nibbles kept
      for (std::size_t i = 0; i < expect_a.size(); i += 4) std::reverse(&expect_a[i], &expect_a[i + 4]);
      for (std::size_t i = 0; i < expect_q.size(); i += 18) std::swap(expect_q[i], expect_q[i + 1]);
    }
    EXPECT_EQ(stored(back, "new.f32"), expect_a);
    EXPECT_EQ(stored(back, "new.q4_0"), expect_q);
    EXPECT_EQ(stored(back, "copied.f16").size(), 10u);
  }
}

// The output replaces an existing file: after each failure it is still the old one, and the
// folder holds nothing else.
TEST(WriterProduced, AFailureHalfwayLeavesNothing) {
  ScratchDir dir("produced_fail");
  const GgufModel in = GgufModel::open(source_model(dir));
  testing::write_text(dir.file("out.gguf"), "the old file");
  const BlockFormat& f32 = *find_format_by_ggml_type(0);
  const auto a = pattern(4 * 256, 3);
  struct Case {
    const char* what;
    GgufTensorProducer producer;
    ErrorKind kind;
    const char* message;
  };
  const Case cases[] = {
      {"throws halfway", writes(a, 100, a.size() / 2), ErrorKind::InvalidInput, "the quantizer failed"},
      {"too few bytes", writes(std::vector(a.begin(), a.end() - 4), 100), ErrorKind::InvalidArgument,
       "tensor 'new.f32': its producer wrote 1020 of its 1024 bytes"},
      {"too many bytes", writes(pattern(4 * 256 + 1, 3), 100), ErrorKind::InvalidArgument,
       "tensor 'new.f32': its producer wrote more than its 1024 bytes"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    std::vector<GgufWriterTensor> tensors;
    tensors.push_back(gguf_writer_tensor(in, *in.find_tensor("copied.f16")));
    tensors.push_back(gguf_produced_tensor("new.f32", {256}, f32, c.producer));
    const GgufLayoutPlan plan = gguf_plan(GgufMetadata::from_records(in.metadata()), tensors, {});
    try {
      AtomicFile out = AtomicFile::create(dir.file("out.gguf"));
      gguf_write(out, plan, tensors, {});
      out.commit();
      FAIL() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), c.kind);
      EXPECT_EQ(std::string(e.what()), c.message);
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), c.message);
    }
    EXPECT_EQ(testing::read_text(dir.file("out.gguf")), "the old file");
    EXPECT_EQ(dir.names(), (std::set<std::string>{"in.gguf", "out.gguf"}));
  }
}

TEST(WriterProduced, AShapeOrNameThatBreaksARuleIsRefused) {
  const BlockFormat& q4_0 = *find_format_by_ggml_type(2);
  auto refused = [&](std::string name, std::vector<std::uint64_t> ne, std::string message) {
    try {
      gguf_produced_tensor(std::move(name), std::move(ne), q4_0, [](GgufTensorSink&) {});
      ADD_FAILURE() << "no error for " << message;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
      EXPECT_EQ(std::string(e.what()), message);
    }
  };
  refused("t", {48}, "tensor 't' has ne0 = 48, expected a multiple of 32 for Q4_0");
  refused("t", {}, "tensor 't' has 0 dimensions, expected 1..4");
  refused("t", {32, 1, 1, 1, 1}, "tensor 't' has 5 dimensions, expected 1..4");
  refused(std::string(64, 'n'), {32},
          "tensor '" + std::string(64, 'n') +
              "' name is 64 bytes long, more than ggml's limit of 63 (GGML_MAX_NAME 64 with its NUL)");
  EXPECT_EQ(gguf_produced_tensor(std::string(63, 'n'), {32, 2}, q4_0, {}).byte_size, 36u);
}

}  // namespace
}  // namespace onnxq
