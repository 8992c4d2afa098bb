// Big-endian files and gguf-split models.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gguf_builder.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/gguf/file.hpp"

namespace onnxq {
namespace {

using testing::GgufBuilder;
using testing::GgufBytes;

GgufBuilder sample(bool big_endian, const std::string& magic) {
  GgufBuilder b;
  b.big_endian = big_endian;
  b.magic = magic;
  b.kv_u32("general.alignment", 32);
  b.kv_u16("u16", 0xBEEF);
  b.kv("f32", 6, [](GgufBytes& w) { w.u32(0x40490FDB); });
  b.kv("i64", 11, [](GgufBytes& w) { w.u64(static_cast<std::uint64_t>(-5)); });
  b.kv("arr", 9, [](GgufBytes& w) {
    w.u32(4);  // u32
    w.u64(3);
    for (std::uint32_t v : {1u, 0xFFFFFFFFu, 7u}) w.u32(v);
  });
  b.kv("strs", 9, [](GgufBytes& w) {
    w.u32(8);
    w.u64(2);
    w.str("one");
    w.str("two");
  });
  b.tensor("w", {256, 2}, 12);
  b.tensor("v", {3}, 0);
  return b;
}

GgufFile parse(const std::vector<std::uint8_t>& bytes) {
  return GgufFile::parse({reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()}, "mem.gguf");
}

TEST(GgufByteOrder, BigEndianFilesReadTheSameValues) {
  const auto le_bytes = sample(false, "GGUF").build();
  for (const std::string magic : {"GGUF", "FUGG"}) {
    SCOPED_TRACE(magic);
    const auto be_bytes = sample(true, magic).build();
    const GgufFile le = parse(le_bytes);
    const GgufFile be = parse(be_bytes);
    EXPECT_FALSE(le.primary().big_endian);
    EXPECT_TRUE(be.primary().big_endian);
    EXPECT_EQ(be.primary().version, 3u);
    EXPECT_EQ(be.find_metadata("u16")->as_u64(), 0xBEEFu);
    EXPECT_EQ(be.find_metadata("f32")->raw_bits(), 0x40490FDBu);
    EXPECT_EQ(be.find_metadata("i64")->as_i64(), -5);
    EXPECT_EQ(be.find_metadata("arr")->as_array().at(1).as_u64(), 0xFFFFFFFFu);
    EXPECT_EQ(be.find_metadata("strs")->as_array().at(1).as_string(), "two");
    ASSERT_EQ(be.tensors().size(), le.tensors().size());
    for (std::size_t i = 0; i < be.tensors().size(); ++i) {
      EXPECT_EQ(be.tensors()[i].name, le.tensors()[i].name);
      EXPECT_EQ(be.tensors()[i].ne, le.tensors()[i].ne);
      EXPECT_EQ(be.tensors()[i].byte_size, le.tensors()[i].byte_size);
      EXPECT_EQ(be.tensors()[i].file_offset, le.tensors()[i].file_offset);
    }
  }
}

class SplitModel : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("onnxq-split-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string shard_name(int i, int n) const {
    char buf[64];
    std::snprintf(buf, sizeof buf, "model-%05d-of-%05d.gguf", i, n);
    return (dir_ / buf).string();
  }

  void write_shards(int n, int tensors_per_shard, int claimed_count = -1) {
    for (int i = 0; i < n; ++i) {
      GgufBuilder b;
      if (i == 0) b.kv_str("general.name", "split test");
      b.kv_u16("split.no", static_cast<std::uint16_t>(i));
      b.kv_u16("split.count", static_cast<std::uint16_t>(claimed_count < 0 ? n : claimed_count));
      b.kv_i32("split.tensors.count", n * tensors_per_shard);
      for (int t = 0; t < tensors_per_shard; ++t) {
        char name[32];
        std::snprintf(name, sizeof name, "t%d.%d", i, t);
        b.tensor(name, {32}, 8);
      }
      const auto bytes = b.build();
      std::ofstream(shard_name(i + 1, n), std::ios::binary)
          .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
  }

  std::filesystem::path dir_;
};

TEST_F(SplitModel, AnyShardOpensTheWholeModel) {
  write_shards(3, 2);
  for (int i = 1; i <= 3; ++i) {
    const GgufFile model = GgufFile::open(shard_name(i, 3));
    ASSERT_EQ(model.shards().size(), 3u);
    ASSERT_EQ(model.tensors().size(), 6u);
    EXPECT_EQ(model.tensors()[4].name, "t2.0");
    EXPECT_EQ(model.tensors()[4].shard, 2u);
    EXPECT_EQ(model.tensor_bytes(model.tensors()[4]).size(), 34u);
    EXPECT_EQ(model.find_metadata("general.name")->as_string(), "split test");
  }
}

TEST_F(SplitModel, MissingShardIsAnIoError) {
  write_shards(3, 1);
  std::filesystem::remove(shard_name(2, 3));
  try {
    GgufFile::open(shard_name(1, 3));
    FAIL() << "opened a model with a missing shard";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_NE(std::string(e.what()).find("missing shard 2 of 3"), std::string::npos) << e.what();
  }
}

TEST_F(SplitModel, CountThatDisagreesWithTheNameIsRejected) {
  write_shards(2, 1, 5);
  EXPECT_THROW(GgufFile::open(shard_name(1, 2)), Error);
}

TEST_F(SplitModel, SplitCountWithoutTheNamingIsRejected) {
  write_shards(2, 1);
  const auto plain = (dir_ / "renamed.gguf").string();
  std::filesystem::rename(shard_name(1, 2), plain);
  EXPECT_THROW(GgufFile::open(plain), Error);
}

TEST(GgufOpen, MissingFileIsAnIoError) {
  try {
    GgufFile::open("/nonexistent/dir/model.gguf");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/model.gguf"), std::string::npos);
  }
}

}  // namespace
}  // namespace onnxq
