// Every consumer of a BlockSource checks it after using each range (BlockSource::check): a source
// whose bytes turned out not to be the file's (a mapping that shrank) fails the decode, whether
// it hands out one view or chunks, through decode_blocks, decode_into and write_decoded alike.
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "onnxq/core/error.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/formats/block_source.hpp"
#include "onnxq/stream/tensor_stream.hpp"

namespace onnxq {
namespace {

// Packed f32 values whose check() fails once `checks_left` checks have passed.
class FailingCheck final : public BlockSource {
 public:
  FailingCheck(std::span<const std::byte> bytes, bool as_view, int checks_left)
      : packed_(*find_format("f32"), bytes), as_view_(as_view), checks_left_(checks_left) {}
  const BlockFormat& format() const override { return packed_.format(); }
  std::uint64_t block_count() const override { return packed_.block_count(); }
  std::span<const std::byte> blocks(std::uint64_t first, std::uint64_t count,
                                    std::vector<std::byte>& scratch) const override {
    return packed_.blocks(first, count, scratch);
  }
  std::optional<std::span<const std::byte>> view() const override { return as_view_ ? packed_.view() : std::nullopt; }
  void check() const override {
    if (checks_left_-- <= 0) throw Error(ErrorKind::Io, "the file changed");
  }

 private:
  PackedBytes packed_;
  bool as_view_;
  mutable std::atomic<int> checks_left_;
};

class NullSink final : public StreamSink {
 public:
  void write(const void*, std::size_t) override {}
};

TEST(BlockSourceCheck, EveryConsumerChecksTheSource) {
  std::vector<float> values(1 << 20, 1.5f);  // several chunks
  const auto bytes = std::as_bytes(std::span(values));
  std::vector<float> out(values.size());
  for (const bool as_view : {true, false}) {
    SCOPED_TRACE(as_view ? "a view" : "chunks");
    {
      const FailingCheck src(bytes, as_view, 0);
      EXPECT_THROW(decode_blocks(src, 0, src.block_count(), DType::Float, out.data(), 1), Error);
    }
    {
      const FailingCheck src(bytes, as_view, 0);
      EXPECT_THROW(decode_into(src, DType::Float, std::as_writable_bytes(std::span(out))), Error);
    }
    {
      const FailingCheck src(bytes, as_view, 0);
      NullSink sink;
      EXPECT_THROW(write_decoded(sink, src, DType::Float), Error);
    }
    const FailingCheck fine(bytes, as_view, 1 << 30);
    decode_blocks(fine, 0, fine.block_count(), DType::Float, out.data(), 1);
    EXPECT_EQ(out, values);
  }
}

}  // namespace
}  // namespace onnxq
