// Tensor data of a local file is read with pread into the reader's buffers, never through the
// file's mapping: touching a mapping costs a page fault per page, more than the kernel's copy.
// The proof is the mapping's resident size in /proc/self/smaps (the pages its page tables hold)
// after a large tensor was decoded: page-fault counts cannot tell, as one fault may map a large
// folio of the page cache.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gguf_builder.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/gguf/tensor_reader.hpp"
#include "onnxq/stream/tensor_stream.hpp"

namespace onnxq {
namespace {

// F16: 32 MiB, 8192 pages of the file, faulted in at least 512 faults (the kernel maps up to 16
// pages of the page cache around each fault).
constexpr std::uint64_t kElements = std::uint64_t{16} << 20;
constexpr std::uint32_t kF16 = 1;

// The Rss, in KiB, of the mapping that holds `address`; -1 when none does.
long resident_kib(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &begin, &end) == 2 && line.find('-') < line.find(' ')) {
      inside = begin <= at && at < end;
    } else if (inside && line.rfind("Rss:", 0) == 0) {
      return std::stol(line.substr(4));
    }
  }
  return -1;
}

class TensorReads : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() / ("onnxq_reads_" + std::to_string(::getpid()) + ".gguf");
    testing::GgufBuilder builder;
    builder.tensor({"big", {kElements}, kF16, std::vector<std::uint8_t>(kElements * 2, 0x3c), false, std::nullopt});
    const std::vector<std::uint8_t> bytes = builder.build();
    std::ofstream(path_, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::filesystem::path path_;
};

TEST_F(TensorReads, DecodingAMappedTensorLeavesItsPagesUnmapped) {
  const GgufModel model = GgufModel::open(path_.string());
  const TensorReader reader(model, model.tensors().front());
  std::vector<std::byte> out(kElements * 4);
  decode_into(reader, DType::Float, out, StreamOptions{2, {}});
  const long kib = resident_kib(reader.stored_view()->data());
  ASSERT_GE(kib, 0);  // the header is read through the mapping: its pages (one folio may be 2 MiB) count
  EXPECT_LT(kib, 8192) << "the file's pages were read through its mapping";
  float first = 0;
  std::memcpy(&first, out.data(), 4);
  EXPECT_EQ(first, 1.0f + 0x3c / 1024.0f);  // 0x3c3c as binary16
}

TEST_F(TensorReads, StoredBytesAreCopiesAndTheMappingStaysForRaw) {
  const GgufModel model = GgufModel::open(path_.string());
  const TensorReader reader(model, model.tensors().front());
  std::vector<std::byte> scratch;
  const auto stored = reader.stored(0, 1 << 20, scratch);
  EXPECT_EQ(stored.data(), scratch.data());
  EXPECT_FALSE(reader.view().has_value());
  ASSERT_TRUE(reader.stored_view().has_value());
  EXPECT_EQ(reader.stored_view()->size(), kElements * 2);
  EXPECT_EQ(std::memcmp(reader.stored_view()->data(), stored.data(), stored.size()), 0);
}

TEST_F(TensorReads, StoredBytesGoToTheFrontOfACallersBuffer) {
  const GgufModel model = GgufModel::open(path_.string());
  const TensorReader reader(model, model.tensors().front());
  std::vector<std::byte> buffer(2 << 20, std::byte{0x55});
  const auto stored = reader.stored(4096, 1 << 20, std::span<std::byte>(buffer));
  EXPECT_EQ(stored.data(), buffer.data());
  ASSERT_EQ(stored.size(), std::size_t{1} << 20);
  EXPECT_EQ(std::memcmp(reader.stored_view()->data() + 4096, stored.data(), stored.size()), 0);
  EXPECT_EQ(buffer[1 << 20], std::byte{0x55}) << "written past the bytes asked for";
  try {
    reader.stored(0, (2 << 20) + 1, std::span<std::byte>(buffer));
    ADD_FAILURE() << "a buffer too short was taken";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("2097152 bytes cannot hold 2097153"), std::string::npos) << e.what();
  }
}

TEST(TensorBytes, BytesHeldInMemoryAreAViewWhateverTheBuffer) {
  testing::GgufBuilder builder;
  builder.tensor({"t", {64}, kF16, std::vector<std::uint8_t>(128, 0x3c), false, std::nullopt});
  const std::vector<std::uint8_t> file = builder.build();
  const GgufModel model = GgufModel::parse(std::as_bytes(std::span(file)), "memory.gguf");
  const TensorInfo& t = model.tensors().front();
  const auto bytes = model.tensor_bytes(t, 2, 100, std::span<std::byte>());  // no room: none needed
  EXPECT_EQ(bytes.data(), model.tensor_bytes(t).data() + 2);
  EXPECT_EQ(bytes.size(), 100u);
  EXPECT_THROW(model.tensor_bytes(t, 100, 29, std::span<std::byte>()), Error);  // past the tensor's 128 bytes
}

}  // namespace
}  // namespace onnxq
