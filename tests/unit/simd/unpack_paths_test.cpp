// Every Unpack kernel path this CPU runs (portable, avx2, avx512, avx512vbmi) against the scalar
// reference, bit for bit: bits 1..8 and (R, G) = (3, 5), UINT8 and UINT32 words along the last
// axis, row lengths 0..300 and some long rows (whole vectors, odd tails, counts not a multiple of 8),
// random words with random padding bits, several rows per tensor; and the active-path choice.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "onnxq/core/error.hpp"
#include "onnxq/decode/isa.hpp"
#include "onnxq/ops/unpack.hpp"
#include "op_tensors.hpp"

namespace onnxq {
namespace {

using testing::int64_scalar;

UnpackAttributes bits_attrs(std::int64_t bits) {
  UnpackAttributes a;
  a.bits = bits;
  return a;
}

UnpackAttributes radix3_attrs() {
  UnpackAttributes a;
  a.radix = 3;
  a.group_size = 5;
  return a;
}

// Rows of random words (every bit random, padding included); `limit` caps each byte (radix 3).
Tensor random_words(DType storage, std::int64_t rows, std::int64_t words, std::mt19937_64& rng, unsigned limit = 256) {
  Tensor x = Tensor::zeros(storage, {rows, words});
  for (auto& b : x.mutable_bytes()) b = static_cast<std::byte>(rng() % limit);
  return x;
}

std::int64_t words_for(std::int64_t bits_needed, DType storage) {
  const std::int64_t word_bits = storage == DType::UInt8 ? 8 : 32;
  return (bits_needed + word_bits - 1) / word_bits;
}

// Row lengths: all of 0..40, then random ones up to 300, then some long rows.
std::vector<std::int64_t> row_lengths(std::mt19937_64& rng) {
  std::vector<std::int64_t> n;
  for (std::int64_t c = 0; c <= 40; ++c) n.push_back(c);
  for (int i = 0; i < 60; ++i) n.push_back(static_cast<std::int64_t>(rng() % 301));
  for (std::int64_t c : {63, 64, 65, 127, 128, 129, 319, 320, 321, 640, 1000, 4099, 65537}) n.push_back(c);
  return n;
}

::testing::AssertionResult same_bytes(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return ::testing::AssertionFailure() << "shapes differ";
  const auto x = a.bytes(), y = b.bytes();
  for (std::size_t i = 0; i < x.size(); ++i)
    if (x[i] != y[i])
      return ::testing::AssertionFailure()
             << "code " << i << ": got " << std::to_integer<int>(x[i]) << ", reference " << std::to_integer<int>(y[i]);
  return ::testing::AssertionSuccess();
}

TEST(UnpackSimd, PathsListed) {
  const std::vector<std::string> paths = unpack_kernel_paths();
  ASSERT_FALSE(paths.empty());
  EXPECT_EQ(paths.front(), "portable");
  Tensor y = Tensor::zeros(DType::UInt8, {1, 8});
  EXPECT_THROW(unpack_into_path(Tensor::zeros(DType::UInt8, {1, 1}), int64_scalar(8), bits_attrs(1), y, "sse9"), Error);
}

// Restores the streaming-store threshold when a test ends.
struct ThresholdGuard {
  std::size_t saved = streaming_store_threshold();
  ~ThresholdGuard() { set_streaming_store_threshold(saved); }
};

// threshold 0 forces the non-temporal-store kernels (rows reaching a 64-byte boundary use them).
TEST(UnpackSimd, BitsEveryPathMatchesReference) {
  ThresholdGuard guard;
  std::mt19937_64 rng(29);
  const std::vector<std::int64_t> lengths = row_lengths(rng);
  for (std::size_t threshold : {SIZE_MAX, std::size_t{0}})
    for (const std::string& path : unpack_kernel_paths())
      for (DType storage : {DType::UInt8, DType::UInt32})
        for (std::int64_t bits = 1; bits <= 8; ++bits)
          for (std::int64_t count : lengths) {
            set_streaming_store_threshold(threshold);
            const std::int64_t rows = 1 + static_cast<std::int64_t>(rng() % 4);
            SCOPED_TRACE(path + " bits=" + std::to_string(bits) + " count=" + std::to_string(count) +
                         " rows=" + std::to_string(rows) + (storage == DType::UInt8 ? " u8" : " u32") +
                         (threshold ? "" : " streaming"));
            const Tensor x = random_words(storage, rows, words_for(count * bits, storage), rng);
            const Tensor c = int64_scalar(count);
            const Tensor expected = unpack_reference(x, c, bits_attrs(bits));
            Tensor y = Tensor::zeros(DType::UInt8, {rows, count});
            for (auto& b : y.mutable_bytes()) b = std::byte{0xEE};  // stale bytes must all be overwritten
            unpack_into_path(x, c, bits_attrs(bits), y, path);
            ASSERT_TRUE(same_bytes(y, expected));
          }
}

TEST(UnpackSimd, Radix3EveryPathMatchesReference) {
  ThresholdGuard guard;
  std::mt19937_64 rng(35);
  const std::vector<std::int64_t> lengths = row_lengths(rng);
  for (std::size_t threshold : {SIZE_MAX, std::size_t{0}})
    for (const std::string& path : unpack_kernel_paths())
      for (DType storage : {DType::UInt8, DType::UInt32})
        for (std::int64_t count : lengths) {
          set_streaming_store_threshold(threshold);
          const std::int64_t rows = 1 + static_cast<std::int64_t>(rng() % 4);
          SCOPED_TRACE(path + " count=" + std::to_string(count) + " rows=" + std::to_string(rows) +
                       (threshold ? "" : " streaming"));
          Tensor x = random_words(storage, rows, words_for((count + 4) / 5 * 8, storage), rng, 243);
          // Padding bytes past the last group of a UINT32 row are ignored, even when >= 243.
          if (storage == DType::UInt32 && (count + 4) / 5 % 4 != 0) {
            const std::int64_t row_bytes = x.bytes().size() / static_cast<std::size_t>(rows);
            x.mutable_bytes()[static_cast<std::size_t>(row_bytes - 1)] = std::byte{0xFF};
          }
          const Tensor c = int64_scalar(count);
          const Tensor expected = unpack_reference(x, c, radix3_attrs());
          Tensor y = Tensor::zeros(DType::UInt8, {rows, count});
          for (auto& b : y.mutable_bytes()) b = std::byte{0xEE};
          unpack_into_path(x, c, radix3_attrs(), y, path);
          ASSERT_TRUE(same_bytes(y, expected));
        }
}

// Every group index 0..242, in every position of a 64-byte vector, against digits computed here.
TEST(UnpackSimd, Radix3AllIndices) {
  std::vector<std::uint8_t> bytes;
  for (int shift = 0; shift < 64; ++shift)
    for (unsigned v = 0; v < 243; ++v) bytes.push_back(static_cast<std::uint8_t>((v + shift) % 243));
  const auto n = static_cast<std::int64_t>(bytes.size());
  const Tensor x = Tensor::from_bytes(DType::UInt8, {1, n}, std::as_bytes(std::span(bytes)));
  for (const std::string& path : unpack_kernel_paths()) {
    SCOPED_TRACE(path);
    Tensor y = Tensor::zeros(DType::UInt8, {1, 5 * n});
    unpack_into_path(x, int64_scalar(5 * n), radix3_attrs(), y, path);
    const auto* codes = reinterpret_cast<const std::uint8_t*>(y.bytes().data());
    for (std::int64_t g = 0; g < n; ++g) {
      unsigned v = bytes[static_cast<std::size_t>(g)];
      for (int d = 0; d < 5; ++d, v /= 3)
        ASSERT_EQ(codes[5 * g + d], v % 3) << "index " << int{bytes[g]} << " digit " << d;
    }
  }
}

// An index >= 243 anywhere in a row (first vector, later vector, tail) is diagnosed on every path.
TEST(UnpackSimd, Radix3InvalidIndexEveryPath) {
  ThresholdGuard guard;
  std::mt19937_64 rng(7);
  for (std::size_t threshold : {SIZE_MAX, std::size_t{0}})
    for (const std::string& path : unpack_kernel_paths())
      for (std::int64_t at : {0, 5, 63, 64, 200, 399}) {
        set_streaming_store_threshold(threshold);
        SCOPED_TRACE(path + " at=" + std::to_string(at));
        Tensor x = random_words(DType::UInt8, 2, 400, rng, 243);
        x.mutable_bytes()[static_cast<std::size_t>(400 + at)] = static_cast<std::byte>(243 + rng() % 13);
        Tensor y = Tensor::zeros(DType::UInt8, {2, 2000});
        EXPECT_THROW(unpack_into_path(x, int64_scalar(2000), radix3_attrs(), y, path), Error);
      }
}

// unpack() follows the process-wide SIMD path; every choice gives the reference's codes.
TEST(UnpackSimd, ActivePathEachIsa) {
  struct Guard {
    ~Guard() { select_isa(""); }
  } guard;
  std::mt19937_64 rng(11);
  for (const std::string& isa : supported_isas()) {
    select_isa(isa);
    for (std::int64_t bits = 1; bits <= 8; ++bits) {
      SCOPED_TRACE(isa + " bits=" + std::to_string(bits));
      const Tensor x = random_words(DType::UInt8, 3, words_for(777 * bits, DType::UInt8), rng);
      EXPECT_TRUE(same_bytes(unpack(x, int64_scalar(777), bits_attrs(bits)),
                             unpack_reference(x, int64_scalar(777), bits_attrs(bits))));
    }
  }
}

}  // namespace
}  // namespace onnxq
