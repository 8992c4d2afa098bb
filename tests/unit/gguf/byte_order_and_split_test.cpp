// Big-endian files and gguf-split models.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gguf_builder.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/gguf/model.hpp"
#include "onnxq/gguf/tensor_decode.hpp"

namespace onnxq {
namespace {

using testing::GgufBuilder;
using testing::GgufBytes;
using testing::parse_gguf;

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

TEST(GgufByteOrder, BigEndianFilesReadTheSameValues) {
  const auto le_bytes = sample(false, "GGUF").build();
  for (const std::string magic : {"GGUF", "FUGG"}) {
    SCOPED_TRACE(magic);
    const auto be_bytes = sample(true, magic).build();
    const GgufModel le = parse_gguf(le_bytes);
    const GgufModel be = parse_gguf(be_bytes);
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

// A big-endian q4_K tensor of several swap steps (589 KiB), decoded by two threads, equals its
// little-endian twin bit for bit; the swapped d and dmin are written here by hand.
TEST(GgufByteOrder, BigEndianBlocksDecodeLikeTheirTwinOnManyThreads) {
  constexpr std::size_t kBlocks = 4096, kBytes = 144;
  std::vector<std::uint8_t> le_data(kBlocks * kBytes);
  std::uint32_t x = 12345;
  for (auto& b : le_data) b = static_cast<std::uint8_t>((x = x * 1103515245u + 12345u) >> 24);
  std::vector<std::uint8_t> be_data = le_data;
  for (std::size_t b = 0; b < kBlocks; ++b) {
    std::swap(be_data[b * kBytes + 0], be_data[b * kBytes + 1]);  // d
    std::swap(be_data[b * kBytes + 2], be_data[b * kBytes + 3]);  // dmin
  }
  auto build = [](bool big_endian, std::vector<std::uint8_t> data) {
    GgufBuilder b;
    b.big_endian = big_endian;
    testing::BuilderTensor t;
    t.name = "w";
    t.ne = {256, kBlocks};
    t.type = 12;
    t.data = std::move(data);
    b.tensor(std::move(t));
    return b.build();
  };
  const auto le_bytes = build(false, le_data);
  const auto be_bytes = build(true, be_data);
  const GgufModel le = parse_gguf(le_bytes);
  const GgufModel be = parse_gguf(be_bytes);
  ASSERT_TRUE(tensor_data_is_big_endian(be, be.tensors()[0]));
  ASSERT_FALSE(tensor_data_is_big_endian(le, le.tensors()[0]));
  for (DType out : {DType::Float, DType::Float16, DType::BFloat16, DType::Double}) {
    const std::size_t n = kBlocks * 256 * (dtype_info(out).bits / 8);
    std::vector<std::uint8_t> want(n), got(n, 0xAA);
    decode_tensor_blocks(le, le.tensors()[0], 0, kBlocks, out, want.data(), 1);
    decode_tensor_blocks(be, be.tensors()[0], 0, kBlocks, out, got.data(), 2);
    EXPECT_EQ(got, want) << dtype_info(out).onnx_name;
    // A range that starts and ends inside the swap steps.
    const std::size_t per_block = n / kBlocks;
    std::vector<std::uint8_t> part(1900 * per_block);
    decode_tensor_blocks(be, be.tensors()[0], 1000, 1900, out, part.data(), 2);
    EXPECT_TRUE(std::equal(part.begin(), part.end(), want.begin() + 1000 * per_block));
  }
  std::vector<float> one(256);
  EXPECT_THROW(decode_tensor_blocks(be, be.tensors()[0], kBlocks, 1, DType::Float, one.data(), 2), Error);
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
    const GgufModel model = GgufModel::open(shard_name(i, 3));
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
    GgufModel::open(shard_name(1, 3));
    FAIL() << "opened a model with a missing shard";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_NE(std::string(e.what()).find("missing shard 2 of 3"), std::string::npos) << e.what();
  }
}

TEST_F(SplitModel, ShardsPresentOpenWhenOthersAreAllowedToBeMissing) {
  write_shards(3, 1);
  std::filesystem::remove(shard_name(2, 3));
  const GgufModel model = GgufModel::open(shard_name(3, 3), ShardPolicy::AllowMissing);
  ASSERT_EQ(model.shards().size(), 2u);
  ASSERT_EQ(model.missing_shards().size(), 1u);
  EXPECT_EQ(model.missing_shards()[0].split_number, 2);
  EXPECT_EQ(model.missing_shards()[0].path, shard_name(2, 3));
  EXPECT_EQ(model.named_shard().split_number, 3);
  EXPECT_EQ(model.named_shard().path, shard_name(3, 3));
  ASSERT_EQ(model.tensors().size(), 2u);
  EXPECT_EQ(model.tensors()[1].name, "t2.0");
  EXPECT_EQ(model.shards()[model.tensors()[1].shard].split_number, 3);
}

TEST_F(SplitModel, OnlyThisFileReadsTheNamedShardAlone) {
  write_shards(3, 1);
  std::filesystem::remove(shard_name(1, 3));
  const GgufModel model = GgufModel::open(shard_name(2, 3), ShardPolicy::OnlyThisFile);
  ASSERT_EQ(model.shards().size(), 1u);
  EXPECT_TRUE(model.missing_shards().empty());
  EXPECT_EQ(model.find_metadata("split.no")->as_u64(), 1u);
  EXPECT_EQ(model.find_metadata("general.name"), nullptr) << "shard 1's keys are not this file's";
  EXPECT_EQ(model.named_shard().split_number, 2);
}

TEST_F(SplitModel, RenamedShardCountsItsSiblingsAsMissing) {
  write_shards(3, 1);
  const auto renamed = (dir_ / "renamed.gguf").string();
  std::filesystem::rename(shard_name(2, 3), renamed);
  const GgufModel model = GgufModel::open(renamed, ShardPolicy::AllowMissing);
  EXPECT_EQ(model.named_shard().split_number, 2);
  ASSERT_EQ(model.missing_shards().size(), 2u);
  EXPECT_EQ(model.missing_shards()[0].split_number, 1);
  EXPECT_EQ(model.missing_shards()[1].split_number, 3);
  EXPECT_TRUE(model.missing_shards()[0].path.empty());
}

TEST_F(SplitModel, CountThatDisagreesWithTheNameIsRejected) {
  write_shards(2, 1, 5);
  EXPECT_THROW(GgufModel::open(shard_name(1, 2)), Error);
}

TEST_F(SplitModel, SplitCountWithoutTheNamingIsRejected) {
  write_shards(2, 1);
  const auto plain = (dir_ / "renamed.gguf").string();
  std::filesystem::rename(shard_name(1, 2), plain);
  EXPECT_THROW(GgufModel::open(plain), Error);
}

TEST(GgufOpen, MissingFileIsAnIoError) {
  try {
    GgufModel::open("/nonexistent/dir/model.gguf");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/model.gguf"), std::string::npos);
  }
}

}  // namespace
}  // namespace onnxq
