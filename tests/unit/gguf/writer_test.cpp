// The GGUF writer: files it writes equal, byte for byte, what the test's own serializer
// (gguf_builder) lays out, and read back through the reader with the same values, in both byte
// orders and at every alignment; the data section kept modulo 4096 on request.
#include "onnxq/gguf/writer.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <filesystem>

#include "../io/scratch_dir.hpp"
#include "gguf_builder.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/gguf/metadata.hpp"
#include "onnxq/gguf/model.hpp"

namespace onnxq {
namespace {

using testing::BuilderTensor;
using testing::GgufBuilder;
using testing::GgufBytes;
using testing::ScratchDir;

std::vector<std::uint8_t> file_bytes(const std::string& path) {
  const std::string text = testing::read_text(path);
  return {text.begin(), text.end()};
}

void save(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  testing::write_text(path, std::string(bytes.begin(), bytes.end()));
}

std::vector<std::uint8_t> counting(std::size_t n, std::uint8_t from) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(from + 7 * i);
  return v;
}

// Every value type, arrays of each, of strings, and an empty one (no array of arrays: ggml's reader
// refuses them, so the writer does not write them); three tensors
// of odd sizes (f32 x3, i8 x5, f16 x7) with distinct bytes.
GgufBuilder sample(bool big_endian, std::optional<std::uint32_t> alignment) {
  GgufBuilder b;
  b.big_endian = big_endian;
  if (alignment) {
    b.alignment = *alignment;
    b.kv_u32("general.alignment", *alignment);
  }
  b.kv("u8", 0, [](GgufBytes& w) { w.u8(0xFE); });
  b.kv("i8", 1, [](GgufBytes& w) { w.u8(0x80); });
  b.kv("u16", 2, [](GgufBytes& w) { w.u16(0xBEEF); });
  b.kv("i16", 3, [](GgufBytes& w) { w.u16(0xFFFE); });
  b.kv("u32", 4, [](GgufBytes& w) { w.u32(0xDEADBEEF); });
  b.kv("i32", 5, [](GgufBytes& w) { w.u32(0x80000000); });
  b.kv("f32", 6, [](GgufBytes& w) { w.u32(0x7FC00001); });
  b.kv("bool", 7, [](GgufBytes& w) { w.u8(1); });
  b.kv("str", 8, [](GgufBytes& w) { w.str(std::string("a\0b", 3)); });
  b.kv("u64", 10, [](GgufBytes& w) { w.u64(0xFFFFFFFFFFFFFFFF); });
  b.kv("i64", 11, [](GgufBytes& w) { w.u64(static_cast<std::uint64_t>(-5)); });
  b.kv("f64", 12, [](GgufBytes& w) { w.u64(std::bit_cast<std::uint64_t>(-0.0)); });
  for (std::uint32_t t : {0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u, 10u, 11u, 12u}) {
    b.kv("arr." + std::to_string(t), 9, [t](GgufBytes& w) {
      w.u32(t);
      w.u64(2);
      const std::uint64_t size = t <= 1 || t == 7 ? 1 : t <= 3 ? 2 : t <= 6 ? 4 : 8;
      for (std::uint64_t bits : {std::uint64_t{1}, std::uint64_t{0x8102040810204080}}) {
        for (std::uint64_t i = 0; i < size; ++i) {
          const std::uint64_t shift = 8 * (w.big_endian() ? size - 1 - i : i);
          w.u8(static_cast<std::uint8_t>((bits & (size == 8 ? ~0ull : (1ull << (8 * size)) - 1)) >> shift));
        }
      }
    });
  }
  b.kv("arr.str", 9, [](GgufBytes& w) {
    w.u32(8);
    w.u64(2);
    w.str("x");
    w.str("");
  });
  b.kv("arr.empty", 9, [](GgufBytes& w) {
    w.u32(4);
    w.u64(0);
  });
  auto tensor = [&](std::string name, std::uint64_t n, std::uint32_t type, std::size_t bytes, std::uint8_t seed) {
    BuilderTensor t;
    t.name = std::move(name);
    t.ne = {n};
    t.type = type;
    t.data = counting(bytes, seed);
    b.tensor(std::move(t));
  };
  tensor("a.f32", 3, 0, 12, 1);
  tensor("b.i8", 5, 24, 5, 2);
  tensor("c.f16", 7, 1, 14, 3);
  return b;
}

struct Written {
  std::string path;
  GgufLayoutPlan plan;
};

Written rewrite(const GgufModel& model, const GgufMetadata& md, const std::string& path,
                const GgufWriteOptions& options) {
  std::vector<GgufWriterTensor> tensors;
  for (const auto& t : model.tensors()) tensors.push_back(gguf_writer_tensor(model, t));
  Written w{path, gguf_plan(md, tensors, options)};
  AtomicFile out = AtomicFile::create(path);
  gguf_write(out, w.plan, tensors, options);
  out.commit();
  return w;
}

std::vector<std::byte> tensor_bytes(const GgufModel& m, std::string_view name) {
  const auto s = m.tensor_bytes(*m.find_tensor(name));
  return {s.begin(), s.end()};
}

class WriterByteOrder : public ::testing::TestWithParam<bool> {};

TEST_P(WriterByteOrder, EveryValueTypeRoundTripsAndMatchesAnIndependentSerializer) {
  const bool big = GetParam();
  ScratchDir dir("writer_types");
  const auto expected = sample(big, std::nullopt).build();
  save(dir.file("in.gguf"), expected);
  const GgufModel in = GgufModel::open(dir.file("in.gguf"));
  const GgufMetadata md = GgufMetadata::from_records(in.metadata());
  GgufWriteOptions options;
  options.big_endian = big;
  rewrite(in, md, dir.file("out.gguf"), options);
  EXPECT_EQ(file_bytes(dir.file("out.gguf")), expected);
  const GgufModel out = GgufModel::open(dir.file("out.gguf"));
  EXPECT_EQ(out.primary().big_endian, big);
  EXPECT_EQ(GgufMetadata::from_records(out.metadata()), md);
  ASSERT_EQ(out.tensors().size(), 3u);
  for (const auto& t : in.tensors()) EXPECT_EQ(tensor_bytes(out, t.name), tensor_bytes(in, t.name)) << t.name;
}

TEST_P(WriterByteOrder, ChangingTheByteOrderSwapsTensorsAndComesBackIdentical) {
  const bool big = GetParam();
  ScratchDir dir("writer_swap");
  save(dir.file("in.gguf"), sample(big, std::nullopt).build());
  const GgufModel in = GgufModel::open(dir.file("in.gguf"));
  const GgufMetadata md = GgufMetadata::from_records(in.metadata());
  GgufWriteOptions other;
  other.big_endian = !big;
  rewrite(in, md, dir.file("other.gguf"), other);
  // The test's serializer in the other byte order: numbers swapped, tensors as the rule says.
  GgufBuilder b = sample(!big, std::nullopt);
  const GgufModel converted = GgufModel::open(dir.file("other.gguf"));
  EXPECT_EQ(converted.primary().big_endian, !big);
  EXPECT_EQ(GgufMetadata::from_records(converted.metadata()), md);
  auto swapped = [](std::vector<std::byte> v, std::size_t word) {
    for (std::size_t i = 0; i < v.size(); i += word) std::reverse(v.begin() + i, v.begin() + i + word);
    return v;
  };
  EXPECT_EQ(tensor_bytes(converted, "a.f32"), swapped(tensor_bytes(in, "a.f32"), 4));
  EXPECT_EQ(tensor_bytes(converted, "b.i8"), tensor_bytes(in, "b.i8"));
  EXPECT_EQ(tensor_bytes(converted, "c.f16"), swapped(tensor_bytes(in, "c.f16"), 2));
  GgufWriteOptions back;
  back.big_endian = big;
  rewrite(converted, md, dir.file("back.gguf"), back);
  EXPECT_EQ(file_bytes(dir.file("back.gguf")), file_bytes(dir.file("in.gguf")));
}

INSTANTIATE_TEST_SUITE_P(Writer, WriterByteOrder, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "BigEndian" : "LittleEndian"; });

TEST(Writer, EveryAlignmentIsLaidOutAsGgml) {
  for (std::uint32_t alignment : {1u, 8u, 32u, 64u, 4096u}) {
    SCOPED_TRACE(alignment);
    ScratchDir dir("writer_align");
    const auto expected = sample(false, alignment).build();
    save(dir.file("in.gguf"), expected);
    const GgufModel in = GgufModel::open(dir.file("in.gguf"));
    const auto w = rewrite(in, GgufMetadata::from_records(in.metadata()), dir.file("out.gguf"), {});
    EXPECT_EQ(w.plan.alignment, alignment);
    EXPECT_EQ(file_bytes(dir.file("out.gguf")), expected);
    const GgufModel out = GgufModel::open(dir.file("out.gguf"));
    for (const auto& t : out.tensors()) EXPECT_EQ(t.file_offset % alignment, 0u) << t.name;
  }
}

TEST(Writer, ZeroTensors) {
  ScratchDir dir("writer_empty");
  GgufMetadata md;
  md.set("general.name", GgufOwnedValue::string("empty"));
  GgufBuilder b;
  b.kv_str("general.name", "empty");
  const auto plan = gguf_plan(md, {}, {});
  EXPECT_EQ(plan.file_size, plan.data_offset);
  AtomicFile out = AtomicFile::create(dir.file("out.gguf"));
  gguf_write(out, plan, {}, {});
  out.commit();
  EXPECT_EQ(file_bytes(dir.file("out.gguf")), b.build());
  const GgufModel m = GgufModel::open(dir.file("out.gguf"));
  EXPECT_TRUE(m.tensors().empty());
  EXPECT_EQ(GgufMetadata::from_records(m.metadata()), md);
}

// A header grown or shrunk past an alignment step and past 4096 bytes: with the data section kept
// modulo 4096 it starts at the source's remainder, tensors intact, and a later edit replaces the
// padding instead of adding to it; without, it starts where ggml's chain puts it.
TEST(Writer, HeaderGrowsAndShrinksKeepingTheDataModulo4096) {
  ScratchDir dir("writer_grow");
  save(dir.file("in.gguf"), sample(false, std::nullopt).build());
  const GgufModel in = GgufModel::open(dir.file("in.gguf"));
  const std::uint64_t d0 = in.primary().data_offset;
  for (std::size_t grow : {std::size_t{0}, std::size_t{1}, std::size_t{40}, std::size_t{5000}, std::size_t{9000}}) {
    for (bool keep : {false, true}) {
      SCOPED_TRACE(std::to_string(grow) + (keep ? " kept" : " packed"));
      GgufMetadata md = GgufMetadata::from_records(in.metadata());
      md.set("general.description", GgufOwnedValue::string(std::string(grow, 'x')));
      md.remove("arr.str");  // and something smaller goes
      GgufWriteOptions options;
      if (keep) options.data_offset_modulo_block = d0;
      const auto w = rewrite(in, md, dir.file("out.gguf"), options);
      const GgufModel out = GgufModel::open(dir.file("out.gguf"));
      EXPECT_EQ(out.primary().data_offset, w.plan.data_offset);
      if (keep) {
        EXPECT_EQ(w.plan.data_offset % kGgufCloneBlock, d0 % kGgufCloneBlock);
        EXPECT_LT(w.plan.padding_bytes, kGgufCloneBlock);
      } else {
        EXPECT_EQ(out.find_metadata(kGgufPaddingKey), nullptr);
      }
      for (const auto& t : in.tensors()) EXPECT_EQ(tensor_bytes(out, t.name), tensor_bytes(in, t.name)) << t.name;
      // Edited again, back to the source's metadata: the padding is recomputed, not kept.
      GgufWriteOptions again;
      again.data_offset_modulo_block = d0;
      const auto w2 = rewrite(out, GgufMetadata::from_records(in.metadata()), dir.file("again.gguf"), again);
      EXPECT_EQ(w2.plan.data_offset, d0);
      EXPECT_EQ(file_bytes(dir.file("again.gguf")), file_bytes(dir.file("in.gguf")));
    }
  }
}

TEST(Writer, RefusesWhatGgmlCannotRead) {
  GgufMetadata md;
  md.set("general.alignment", GgufOwnedValue::u32(48));
  EXPECT_THROW(gguf_plan(md, {}, {}), Error);
  md.set("general.alignment", GgufOwnedValue::u64(32));
  EXPECT_THROW(gguf_plan(md, {}, {}), Error);
  GgufWriterTensor t;
  t.name = "t";
  t.ne = {3};
  t.ggml_type = 0;
  t.format = find_format_by_ggml_type(0);
  t.byte_size = 11;  // f32 x3 is 12
  EXPECT_THROW(gguf_plan({}, std::span(&t, 1), {}), Error);
  t.byte_size = 12;
  std::vector<GgufWriterTensor> twice{t, t};
  EXPECT_THROW(gguf_plan({}, twice, {}), Error);
}

// A key that is not ASCII: the reader takes the file, the writer refuses it (naming the key escaped),
// and a dry run's plan refuses it in the same words; without that key the file is written, by the
// options that keep it as it is, exactly as the plan laid it out.
TEST(Writer, ANonAsciiKeyIsReadRefusedAndRemovable) {
  ScratchDir dir("writer_non_ascii");
  GgufBuilder b = sample(true, 64);
  b.kv_u32("mod\xc3\xa8le", 7);
  save(dir.file("in.gguf"), b.build());
  const GgufModel in = GgufModel::open(dir.file("in.gguf"));
  const GgufFile& file = in.primary();
  const GgufWriteOptions options = gguf_edit_options(file);
  EXPECT_EQ(options.version, file.version);
  EXPECT_TRUE(options.big_endian);
  EXPECT_EQ(options.data_offset_modulo_block, file.data_offset);
  GgufMetadata md = GgufMetadata::from_records(in.metadata());
  const std::string message = "metadata key " + std::to_string(md.size() - 1) +
                              " 'mod\\xc3\\xa8le' is not ASCII (byte 3), as the GGUF specification requires";
  for (bool dry_run : {true, false}) {
    try {
      if (dry_run)
        gguf_plan_rewrite(in, file, md, options);
      else
        gguf_rewrite_file(in, file, md, options, dir.file("out.gguf"));
      ADD_FAILURE() << "no error; expected: " << message;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
      EXPECT_EQ(std::string(e.what()), message);
    }
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.gguf")));
  ASSERT_TRUE(md.remove("mod\xc3\xa8le"));
  const GgufRewritePlan plan = gguf_plan_rewrite(in, file, md, options);
  ASSERT_EQ(plan.tensors.size(), 3u);
  EXPECT_EQ(plan.layout.data_offset % kGgufCloneBlock, file.data_offset % kGgufCloneBlock);
  const GgufRewrite written = gguf_rewrite_file(in, file, md, options, dir.file("out.gguf"));
  EXPECT_EQ(written.plan.header, plan.layout.header);
  const GgufModel out = GgufModel::open(dir.file("out.gguf"));
  EXPECT_TRUE(out.primary().big_endian);
  EXPECT_EQ(out.find_metadata("mod\xc3\xa8le"), nullptr);
  for (const auto& t : in.tensors()) EXPECT_EQ(tensor_bytes(out, t.name), tensor_bytes(in, t.name)) << t.name;
}

TEST(Writer, AnUnknownTypeIsCopiedButNotSwapped) {
  ScratchDir dir("writer_unknown");
  save(dir.file("in.gguf"), sample(false, std::nullopt).build());
  const GgufModel in = GgufModel::open(dir.file("in.gguf"));
  std::vector<GgufWriterTensor> tensors;
  for (const auto& t : in.tensors()) tensors.push_back(gguf_writer_tensor(in, t));
  tensors[1].format = nullptr;  // as a tensor of a type onnxq does not know
  tensors[1].ggml_type = 99;
  const GgufMetadata md = GgufMetadata::from_records(in.metadata());
  const auto plan = gguf_plan(md, tensors, {});
  {
    AtomicFile out = AtomicFile::create(dir.file("same.gguf"));
    gguf_write(out, plan, tensors, {});
  }
  EXPECT_EQ(gguf_unconvertible_tensors(tensors), std::vector<std::string>{"b.i8 (type 99)"});
  GgufWriteOptions big;
  big.big_endian = true;
  AtomicFile out = AtomicFile::create(dir.file("big.gguf"));
  try {
    gguf_write(out, gguf_plan(md, tensors, big), tensors, big);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_NE(std::string(e.what()).find("b.i8 (type 99)"), std::string::npos) << e.what();
  }
  EXPECT_EQ(out.position(), 0u);  // refused before writing
}

}  // namespace
}  // namespace onnxq
