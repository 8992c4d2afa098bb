// The one reader of tensor bytes (onnxq/gguf/tensor_reader.hpp) and the streaming decoder
// (onnxq/stream/tensor_stream.hpp): a big-endian tensor reads as its little-endian twin, a
// mapped little-endian one as a view; the stream gives the same bytes to an in-order sink, a
// positional sink and a caller's buffer on any thread count.
#include "onnxq/stream/tensor_stream.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "gguf_builder.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/gguf/model.hpp"
#include "onnxq/gguf/tensor_decode.hpp"
#include "onnxq/gguf/tensor_reader.hpp"

namespace onnxq {
namespace {

using testing::GgufBuilder;
using testing::parse_gguf;

// q4_K blocks (144 bytes: d and dmin are binary16), 2000 of them: several stream chunks.
constexpr std::size_t kBlocks = 2000, kBytes = 144;

struct Twins {
  std::vector<std::uint8_t> le_file, be_file;
  std::vector<std::uint8_t> le_data;
};

Twins make_twins() {
  Twins t;
  t.le_data.resize(kBlocks * kBytes);
  std::uint32_t x = 777;
  for (auto& b : t.le_data) b = static_cast<std::uint8_t>((x = x * 1103515245u + 12345u) >> 24);
  std::vector<std::uint8_t> be_data = t.le_data;
  for (std::size_t b = 0; b < kBlocks; ++b) {
    std::swap(be_data[b * kBytes + 0], be_data[b * kBytes + 1]);
    std::swap(be_data[b * kBytes + 2], be_data[b * kBytes + 3]);
  }
  auto build = [](bool big_endian, std::vector<std::uint8_t> data) {
    GgufBuilder b;
    b.big_endian = big_endian;
    testing::BuilderTensor tensor;
    tensor.name = "w";
    tensor.ne = {256, kBlocks};
    tensor.type = 12;
    tensor.data = std::move(data);
    b.tensor(std::move(tensor));
    return b.build();
  };
  t.le_file = build(false, t.le_data);
  t.be_file = build(true, be_data);
  return t;
}

TEST(TensorReader, BigEndianBlocksComeOutLittleEndianAndLittleEndianOnesAsAView) {
  const Twins twins = make_twins();
  const GgufModel le = parse_gguf(twins.le_file), be = parse_gguf(twins.be_file);
  const TensorReader rle(le, le.tensors()[0]), rbe(be, be.tensors()[0]);
  EXPECT_EQ(rle.block_count(), kBlocks);
  ASSERT_TRUE(rle.view().has_value()) << "mapped little-endian: the whole tensor is one view";
  EXPECT_EQ(rle.view()->data(), le.tensor_bytes(le.tensors()[0]).data());
  EXPECT_FALSE(rbe.view().has_value()) << "big-endian: only swapped copies";
  std::vector<std::byte> scratch_le, scratch_be;
  const auto view = rle.blocks(10, 300, scratch_le);
  EXPECT_EQ(view.data(), le.tensor_bytes(le.tensors()[0]).data() + 10 * kBytes) << "mapped little-endian: a view";
  const auto swapped = rbe.blocks(10, 300, scratch_be);
  EXPECT_EQ(swapped.data(), scratch_be.data()) << "big-endian: the scratch buffer";
  ASSERT_EQ(swapped.size(), 300 * kBytes);
  EXPECT_EQ(std::memcmp(swapped.data(), twins.le_data.data() + 10 * kBytes, swapped.size()), 0);
  // stored() hands out the bytes as the file holds them (for hashes): not swapped.
  const auto stored = rbe.stored(0, kBytes, scratch_be);
  EXPECT_EQ(std::memcmp(stored.data(), be.tensor_bytes(be.tensors()[0]).data(), kBytes), 0);
  EXPECT_THROW(rbe.blocks(kBlocks - 1, 2, scratch_be), Error);
  EXPECT_THROW(rbe.blocks(~std::uint64_t{0}, 2, scratch_be), Error);
  EXPECT_TRUE(rbe.blocks(5, 0, scratch_be).empty());
}

// A sink that records what it is given; positional or not.
class RecordingSink final : public StreamSink {
 public:
  explicit RecordingSink(bool positional) : positional_(positional) {}
  void write(const void* data, std::size_t size) override {  // at the position, which it moves on
    if (bytes.size() < base_ + size) bytes.resize(base_ + size);
    std::memcpy(bytes.data() + base_, data, size);
    base_ += size;
  }
  bool positional() const override { return positional_; }
  void write_at(std::uint64_t offset, const void* data, std::size_t size) override {
    std::lock_guard lock(mutex_);
    if (bytes.size() < base_ + offset + size) bytes.resize(base_ + offset + size);
    std::memcpy(bytes.data() + base_ + offset, data, size);
  }
  void advance(std::uint64_t n) override { base_ += n; }
  void reserve(std::uint64_t n) override { reserved = n; }
  std::vector<std::uint8_t> bytes;
  std::uint64_t reserved = 0;

 private:
  bool positional_;
  std::mutex mutex_;
  std::uint64_t base_ = 0;  // where write() has reached
};

TEST(TensorStream, EverySinkAndThreadCountGetsTheDecodedBytesInOrder) {
  const Twins twins = make_twins();
  const GgufModel le = parse_gguf(twins.le_file), be = parse_gguf(twins.be_file);
  for (DType out : {DType::Float, DType::Float16}) {
    const std::size_t n = kBlocks * 256 * (dtype_info(out).bits / 8);
    std::vector<std::uint8_t> want(n);
    decode_tensor_blocks(le, le.tensors()[0], 0, kBlocks, out, want.data(), 1);
    for (const GgufModel* model : {&le, &be}) {
      const TensorReader reader(*model, model->tensors()[0]);
      EXPECT_EQ(decoded_bytes(reader, out), n);
      for (int threads : {1, 2, 3}) {
        for (bool positional : {false, true}) {
          RecordingSink sink(positional);
          std::uint64_t progressed = 0;
          std::mutex m;
          StreamOptions options{threads, [&](std::uint64_t b) {
                                  std::lock_guard lock(m);
                                  progressed += b;
                                }};
          const StreamPlan plan = write_decoded(sink, reader, out, options);
          EXPECT_EQ(plan.threads, static_cast<unsigned>(threads)) << "an explicit count is used";
          EXPECT_EQ(sink.reserved, n);
          EXPECT_EQ(progressed, kBlocks * kBytes);
          EXPECT_TRUE(sink.bytes == want) << threads << (positional ? " positional" : " in order");
        }
        std::vector<std::uint8_t> into(n, 0xAA);
        decode_into(reader, out, std::as_writable_bytes(std::span(into)), {threads, {}});
        EXPECT_TRUE(into == want) << threads << " decode_into";
      }
      std::vector<std::byte> small(n - 1);
      EXPECT_THROW(decode_into(reader, out, small), Error);
    }
  }
}

TEST(TensorStream, AListOfSourcesIsOneStream) {
  const Twins twins = make_twins();
  const GgufModel le = parse_gguf(twins.le_file), be = parse_gguf(twins.be_file);
  const TensorReader a(le, le.tensors()[0]), b(be, be.tensors()[0]);
  const std::vector<const BlockSource*> both{&a, &b};
  RecordingSink sink(false);
  write_decoded(sink, both, DType::Float, {2, {}});
  std::vector<std::uint8_t> one(kBlocks * 256 * 4);
  decode_tensor_blocks(le, le.tensors()[0], 0, kBlocks, DType::Float, one.data(), 1);
  ASSERT_EQ(sink.bytes.size(), 2 * one.size());
  EXPECT_TRUE(std::equal(one.begin(), one.end(), sink.bytes.begin()));
  EXPECT_TRUE(std::equal(one.begin(), one.end(), sink.bytes.begin() + one.size()));
}

}  // namespace
}  // namespace onnxq
