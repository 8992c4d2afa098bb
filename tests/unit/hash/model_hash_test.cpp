// hash_model against digests computed outside onnxq (Python's hashlib and python3-xxhash over the
// same bytes): tensors smaller than a pipeline chunk, exactly one, one and a bit, several, and
// empty, read from a file (the pread path) on one thread and on several, in the manifest's order.
#include "onnxq/hash/model_hash.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gguf_builder.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/core/pipeline.hpp"

namespace onnxq {
namespace {

constexpr std::uint32_t kI8 = 24;  // one byte an element: any size
constexpr std::uint64_t kChunk = kPipelineChunkBytes;

// "t<k>", built by appending: GCC 12 warns (-Wrestrict, a false positive) on "t" + std::string.
std::string tensor_name(std::size_t k) {
  std::string name = "t";
  return name.append(std::to_string(k));
}
const std::uint64_t kSizes[] = {100, 0, kChunk, kChunk + 37, 3 * kChunk + 1, 7};

// The expectations below were printed by this, with /usr/bin/python3:
//   import hashlib, xxhash, uuid
//   whole = b""
//   for k, n in enumerate([100, 0, 512*1024, 512*1024+37, 3*512*1024+1, 7]):
//       b = bytes(((i*131 + k*7 + (i>>9)) & 0xff) for i in range(n)); whole += b
//       print(xxhash.xxh64_hexdigest(b, seed=0), hashlib.sha256(b).hexdigest())
//   print(xxhash.xxh64_hexdigest(whole, seed=0), hashlib.sha256(whole).hexdigest(),
//         xxhash.xxh3_64_hexdigest(whole), hashlib.sha1(whole).hexdigest())
//   ns = uuid.uuid5(uuid.NAMESPACE_URL, "en.wikipedia.org/wiki/Llama.cpp")
//   print(uuid.UUID(bytes=hashlib.sha1(ns.bytes + whole).digest()[:16], version=5))
std::uint8_t byte_of(std::size_t tensor, std::uint64_t i) {
  return static_cast<std::uint8_t>((i * 131 + tensor * 7 + (i >> 9)) & 0xff);
}
const char* const kXxh64[] = {"acd07a6400e07def", "ef46db3751d8e999", "67f71257e2768bde",
                              "ac28e35c781c93bb", "956168e5d37d421f", "a4d80f7d168e2d78"};
const char* const kSha256[] = {"38096f7df9a07dbd731d71ff60beee6457d45e96a78fbca6faa46d5c99492527",
                               "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                               "c8f2b2840e472d1cf3b21539fe0d6c2b213cec3e431ae8ccccff573cba943d27",
                               "5492c457d272548216c97434f150cdeee96890d829a3dcfcf930a06657c7643c",
                               "b84397da00671120332b7d812b2817d99ba5914f3ece8e96b253bf5e08cd8716",
                               "4952ad46986419b6c1e590be1e00de44be26b4ea3543ddb011f2ccccf2456334"};
const char kModelXxh64[] = "051bbf371ec1d91d";
const char kModelSha256[] = "418410ecd2c9aa70cde1ab0a106bf76e04ce1739c4bb93b033b32e3db10ad7bd";
const char kModelXxh3[] = "e1894ebd6c4efefe";
const char kModelSha1[] = "7c28e305779e6cc36736df2f39e7172be92c8f29";
const char kModelUuid[] = "deb5b275-84e3-5b32-985f-0533650662d3";

class ModelHash : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() / ("onnxq_hash_" + std::to_string(::getpid()) + ".gguf");
    testing::GgufBuilder builder;
    for (std::size_t k = 0; k < std::size(kSizes); ++k) {
      std::vector<std::uint8_t> data(kSizes[k]);
      for (std::uint64_t i = 0; i < kSizes[k]; ++i) data[i] = byte_of(k, i);
      builder.tensor({tensor_name(k), {kSizes[k]}, kI8, std::move(data), false, std::nullopt});
    }
    const std::vector<std::uint8_t> bytes = builder.build();
    std::ofstream(path_, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::filesystem::path path_;
};

HashSelection select(std::initializer_list<HashType> types) {
  HashSelection s;
  for (HashType t : types) s[t] = true;
  return s;
}

TEST_F(ModelHash, TensorAndModelRowsMatchHashlibAndXxhashOnEveryThreadCount) {
  const GgufModel model = GgufModel::open(path_.string());
  for (int threads : {1, 2, 4}) {
    const std::vector<HashRow> rows = hash_model(model, select({HashType::Sha256, HashType::Xxh64}), false, threads);
    ASSERT_EQ(rows.size(), 2 * std::size(kSizes) + 2) << threads;
    for (std::size_t k = 0; k < std::size(kSizes); ++k) {
      // For each tensor all its types, xxh64 before sha256 (llama-gguf-hash's order, not the call's).
      EXPECT_EQ(rows[2 * k].type, HashType::Xxh64);
      EXPECT_EQ(rows[2 * k].hex, kXxh64[k]) << "tensor " << k << ", threads " << threads;
      EXPECT_EQ(rows[2 * k + 1].type, HashType::Sha256);
      EXPECT_EQ(rows[2 * k + 1].hex, kSha256[k]) << "tensor " << k << ", threads " << threads;
      ASSERT_NE(rows[2 * k].tensor, nullptr);
      EXPECT_EQ(rows[2 * k].tensor->name, tensor_name(k));
    }
    EXPECT_EQ(rows[rows.size() - 2].hex, kModelXxh64) << threads;
    EXPECT_EQ(rows[rows.size() - 2].tensor, nullptr);
    EXPECT_EQ(rows.back().hex, kModelSha256) << threads;
  }
}

TEST_F(ModelHash, ModelOnlyAndUuidGiveModelRowsOnly) {
  const GgufModel model = GgufModel::open(path_.string());
  const auto all = select({HashType::Xxh64, HashType::Xxh3, HashType::Sha1, HashType::Sha256, HashType::Uuid});
  for (int threads : {1, 2}) {
    const std::vector<HashRow> rows = hash_model(model, all, true, threads);
    ASSERT_EQ(rows.size(), 5u);
    const char* const want[] = {kModelXxh64, kModelXxh3, kModelSha1, kModelSha256, kModelUuid};
    for (std::size_t i = 0; i < 5; ++i) {
      EXPECT_EQ(rows[i].type, kHashTypes[i]);
      EXPECT_EQ(rows[i].hex, want[i]) << hash_type_name(kHashTypes[i]) << ", threads " << threads;
      EXPECT_EQ(rows[i].tensor, nullptr);
    }
    // uuid alone names the model only, even without model_only.
    const std::vector<HashRow> uuid = hash_model(model, select({HashType::Uuid}), false, threads);
    ASSERT_EQ(uuid.size(), 1u);
    EXPECT_EQ(uuid[0].hex, kModelUuid);
  }
}

TEST_F(ModelHash, AFileThatShrankIsAnIoErrorNamingIt) {
  const GgufModel model = GgufModel::open(path_.string());
  std::filesystem::resize_file(path_, std::filesystem::file_size(path_) - kChunk);
  for (int threads : {1, 2}) {
    try {
      // With a SHA type, two threads run the pipeline's stages apart (XXH alone stays on one).
      hash_model(model, select({HashType::Xxh64, HashType::Sha256}), false, threads);
      ADD_FAILURE() << "no error, threads " << threads;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Io);
      EXPECT_NE(std::string(e.what()).find(path_.string()), std::string::npos) << e.what();
    }
  }
}

TEST(HashType, NamesRoundTripAndUnknownNamesAreRefused) {
  for (HashType t : kHashTypes) {
    HashType parsed = HashType::Uuid == t ? HashType::Xxh64 : HashType::Uuid;
    ASSERT_TRUE(parse_hash_type(hash_type_name(t), parsed));
    EXPECT_EQ(parsed, t);
  }
  HashType t = HashType::Sha1;
  EXPECT_FALSE(parse_hash_type("md5", t));
  EXPECT_FALSE(parse_hash_type("XXH64", t));
  EXPECT_EQ(t, HashType::Sha1);
  EXPECT_EQ(hash_type_name(HashType::Sha256), "sha256");
  EXPECT_FALSE(HashSelection{}.any());
  EXPECT_TRUE(select({HashType::Uuid}).any());
}

TEST(HashModel, AnEmptySelectionIsAnInvalidArgument) {
  testing::GgufBuilder builder;
  const std::vector<std::uint8_t> bytes = builder.build();
  const GgufModel model = testing::parse_gguf(bytes);
  try {
    hash_model(model, HashSelection{}, false, 1);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
  }
}

}  // namespace
}  // namespace onnxq
