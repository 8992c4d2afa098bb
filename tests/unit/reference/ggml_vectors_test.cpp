// Golden tests: every block format and plain type decodes bit for bit to ggml's float32
// output (NaN compared by position), for the quantizer blocks and the hard "edge" blocks, on 1
// and several threads, in every output dtype. Only the decoding code: these run in the AArch64
// cross build too (tests/unit/gguf/zoo_vectors_test.cpp decodes zoo.gguf's tensors).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "expected_npy.hpp"
#include "ggml_compare.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/formats/format.hpp"
#include "ref_float16.hpp"

namespace onnxq {
namespace {

using testing::count_mismatches;
using testing::decode_f32;
using testing::decode_scalar;
using testing::ExpectedArray;
using testing::is_nan_bits;
using testing::load_expected_npy;
using testing::read_file_bytes;
using testing::testdata_path;

void expect_file_decodes(const BlockFormat& f, const std::string& bin, const std::string& npy) {
  const std::vector<std::byte> bytes = read_file_bytes(testdata_path(bin));
  const ExpectedArray want = load_expected_npy(testdata_path(npy));
  ASSERT_GT(bytes.size(), 0u);
  if (f.is_block_format()) {
    EXPECT_EQ(count_mismatches(decode_scalar(f, bytes), want.f32_bits(), bin + " scalar reference"), 0u);
  }
  for (int threads : {1, 3})
    EXPECT_EQ(
        count_mismatches(decode_f32(f, bytes, threads), want.f32_bits(), bin + " threads=" + std::to_string(threads)),
        0u);
}

class BlockFormatVectors : public ::testing::TestWithParam<const BlockFormat*> {};

TEST_P(BlockFormatVectors, QuantizerBlocksMatchGgml) {
  const BlockFormat& f = *GetParam();
  const std::string stem = "gguf/blocks/" + std::string(f.format_id.substr(5));
  expect_file_decodes(f, stem + ".bin", stem + ".f32.npy");
}

TEST_P(BlockFormatVectors, EdgeBlocksMatchGgml) {
  const BlockFormat& f = *GetParam();
  const std::string stem = "gguf/blocks/" + std::string(f.format_id.substr(5));
  expect_file_decodes(f, stem + ".edge.bin", stem + ".edge.f32.npy");
}

TEST_P(BlockFormatVectors, RangesDecodeLikeTheWhole) {
  const BlockFormat& f = *GetParam();
  const std::string stem = "gguf/blocks/" + std::string(f.format_id.substr(5));
  const std::vector<std::byte> bytes = read_file_bytes(testdata_path(stem + ".edge.bin"));
  const std::vector<std::uint32_t> whole = decode_f32(f, bytes, 1);
  const std::uint64_t blocks = bytes.size() / f.block_bytes;
  std::vector<std::uint32_t> part((blocks - 5) * f.block_elements);
  decode_blocks(f, bytes, 3, blocks - 5, DType::Float, part.data(), 1);
  EXPECT_TRUE(std::equal(part.begin(), part.end(), whole.begin() + 3 * f.block_elements));
  EXPECT_THROW(decode_blocks(f, bytes, 3, blocks - 2, DType::Float, part.data(), 1), Error);
  EXPECT_THROW(decode_blocks(f, bytes, ~0ull, 2, DType::Float, part.data(), 1), Error);
}

// Threads this process has now (libgomp keeps a parallel region's threads alive afterwards).
std::size_t live_threads() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

// The bit-exact value ggml's float32 `bits` has as `out` (an independent rounding for the 16-bit
// dtypes, exact widening for DOUBLE); whether the decoded element at `got` has it.
bool matches_expectation(std::uint32_t bits, DType out, const std::byte* got) {
  const float x = std::bit_cast<float>(bits);
  if (out == DType::Float) {
    std::uint32_t g;
    std::memcpy(&g, got, 4);
    return g == bits || (is_nan_bits(g) && is_nan_bits(bits));
  }
  if (out == DType::Double) {
    double g;
    std::memcpy(&g, got, 8);
    return std::isnan(x) ? std::isnan(g) : std::bit_cast<std::uint64_t>(g) == std::bit_cast<std::uint64_t>(double{x});
  }
  std::uint16_t g;
  std::memcpy(&g, got, 2);
  const double value = out == DType::Float16 ? testing::ref_half_value(g) : testing::ref_bf16_value(g);
  if (std::isnan(x)) return std::isnan(value);
  const double want = out == DType::Float16 ? testing::ref_to_half()(x) : testing::ref_to_bf16()(x);
  return value == want && std::signbit(value) == std::signbit(want);
}

// ggml's blocks (quantizer and edge) tiled to several MiB, decoded on 2 and 3 threads to every
// output dtype: each thread takes runs worth 256 KiB of output, so these decodes really are
// multi-threaded (the small golden files above fit in one run), and the process must show it.
TEST_P(BlockFormatVectors, TiledBlocksOnSeveralThreadsMatchGgmlInEveryDtype) {
  const BlockFormat& f = *GetParam();
  const std::string stem = "gguf/blocks/" + std::string(f.format_id.substr(5));
  std::vector<std::byte> seed = read_file_bytes(testdata_path(stem + ".bin"));
  const std::vector<std::byte> edge = read_file_bytes(testdata_path(stem + ".edge.bin"));
  seed.insert(seed.end(), edge.begin(), edge.end());
  std::vector<std::uint32_t> seed_want = load_expected_npy(testdata_path(stem + ".f32.npy")).f32_bits();
  const std::vector<std::uint32_t> edge_want = load_expected_npy(testdata_path(stem + ".edge.f32.npy")).f32_bits();
  seed_want.insert(seed_want.end(), edge_want.begin(), edge_want.end());
  const std::size_t seed_blocks = seed.size() / f.block_bytes;
  ASSERT_EQ(seed_want.size(), seed_blocks * f.block_elements);
  const std::size_t copies = (std::size_t{3} << 20) / (seed_want.size() * 4) + 1;  // >= 3 MiB of float32
  std::vector<std::byte> src;
  for (std::size_t i = 0; i < copies; ++i) src.insert(src.end(), seed.begin(), seed.end());
  const std::size_t blocks = copies * seed_blocks;
  for (DType out : {DType::Float, DType::Float16, DType::BFloat16, DType::Double}) {
    const std::size_t size = dtype_info(out).bits / 8;
    std::vector<std::byte> got(blocks * f.block_elements * size);
    for (int threads : {2, 3}) {
      std::fill(got.begin(), got.end(), std::byte{0x5A});
      decode_blocks(f, src, 0, blocks, out, got.data(), threads);
      EXPECT_GE(live_threads(), static_cast<std::size_t>(threads)) << "the decode did not start a thread team";
      std::size_t bad = 0;
      for (std::size_t i = 0; i < blocks * f.block_elements; ++i)
        if (!matches_expectation(seed_want[i % seed_want.size()], out, &got[i * size]) && ++bad <= 3)
          ADD_FAILURE() << f.gguf_name << " -> " << dtype_info(out).onnx_name << " threads=" << threads << " element "
                        << i << " differs from ggml's value";
      EXPECT_EQ(bad, 0u);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllFormats, BlockFormatVectors, ::testing::ValuesIn(testing::block_format_ptrs()),
                         [](const auto& info) { return std::string(info.param->ggml_name); });

TEST(DecoderTable, MatchesTheFormatTable) {
  for (const BlockFormat& f : block_formats()) {
    const BlockDecoder* d = scalar_block_decoder(f.ggml_type);
    ASSERT_NE(d, nullptr) << f.format_id;
    EXPECT_EQ(scalar_block_decoder(f), d) << f.format_id;  // found by index, the same row
    EXPECT_EQ(d->ggml_type, f.ggml_type) << f.format_id;
    EXPECT_EQ(d->block_bytes, f.block_bytes) << f.format_id;
    EXPECT_EQ(d->block_elements, f.block_elements) << f.format_id;
  }
  for (const BlockFormat& f : all_formats())
    if (!f.is_block_format()) {
      EXPECT_EQ(scalar_block_decoder(f), nullptr) << f.gguf_name;
      EXPECT_EQ(scalar_block_decoder(f.ggml_type), nullptr) << f.gguf_name;
    }
  BlockFormat stray = *find_format("gguf:q4_k");  // a row whose index is not its own
  stray.index = 0;
  EXPECT_EQ(scalar_block_decoder(stray), nullptr);
}

// Plain types: blocks/<t>.bin (tests/unit/gguf/zoo_vectors_test.cpp decodes their zoo tensors).
class PlainTypeVectors : public ::testing::TestWithParam<const BlockFormat*> {};

TEST_P(PlainTypeVectors, ToFloat32MatchesTheCast) {
  const BlockFormat& f = *GetParam();
  const std::string stem = "gguf/blocks/" + std::string(f.ggml_name);
  expect_file_decodes(f, stem + ".bin", stem + ".f32.npy");
}

INSTANTIATE_TEST_SUITE_P(AllPlainTypes, PlainTypeVectors, ::testing::ValuesIn(testing::plain_formats()),
                         [](const auto& info) { return std::string(info.param->ggml_name); });

TEST(DecodeBlocks, RejectsIntegerOutputForBlockFormats) {
  const BlockFormat& q4 = *find_format("gguf:q4_0");
  std::vector<std::byte> block(18);
  std::int32_t out[32];
  EXPECT_THROW(decode_blocks(q4, block, 0, 1, DType::Int32, out, 1), Error);
  EXPECT_FALSE(can_decode_to(q4, DType::Int8));
  EXPECT_TRUE(can_decode_to(*find_format("i16"), DType::Int16));
  EXPECT_FALSE(can_decode_to(*find_format("i16"), DType::Int32));
  EXPECT_FALSE(can_decode_to(*find_format("f16"), DType::Int16));
}

}  // namespace
}  // namespace onnxq
