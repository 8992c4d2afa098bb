// All four output dtypes on the real vectors: FLOAT16/BFLOAT16 must equal the RNE of
// ggml's float32 expectation (rounded here by an independent reference), DOUBLE its
// exact widening. Several thread counts must give the same bytes.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "expected_npy.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/formats/format.hpp"
#include "ref_float16.hpp"

namespace onnxq {
namespace {

using namespace onnxq::testing;

struct Vectors {
  std::vector<std::byte> bytes;
  std::vector<float> want;
};

Vectors load(const std::string& stem) {
  Vectors v;
  v.bytes = read_file_bytes(testdata_path(stem + ".bin"));
  const auto bits = load_expected_npy(testdata_path(stem + ".f32.npy")).f32_bits();
  v.want.resize(bits.size());
  std::memcpy(v.want.data(), bits.data(), bits.size() * 4);
  return v;
}

template <class T>
std::vector<T> decode_as(const BlockFormat& f, const std::vector<std::byte>& bytes, DType out, int threads) {
  const std::uint64_t blocks = bytes.size() / f.block_bytes;
  std::vector<T> y(blocks * f.block_elements);
  decode_blocks(f, bytes, 0, blocks, out, y.data(), threads);
  return y;
}

void check_16bit(const std::string& what, const std::vector<std::uint16_t>& got, const std::vector<float>& want,
                 double (*value_of)(std::uint16_t), const RefRounder& ref) {
  ASSERT_EQ(got.size(), want.size());
  int bad = 0;
  for (std::size_t i = 0; i < got.size() && bad < 5; ++i) {
    const double g = value_of(got[i]);
    const float x = want[i];
    const bool ok = std::isnan(x) ? (std::isnan(g) && std::signbit(g) == std::signbit(x))
                                  : (g == ref(x) && std::signbit(g) == std::signbit(x));
    if (!ok) {
      ++bad;
      ADD_FAILURE() << what << " element " << i << ": float32 " << x << " gave 0x" << std::hex << got[i];
    }
  }
}

void check_all_dtypes(const BlockFormat& f, const std::string& stem) {
  const Vectors v = load(stem);
  for (int threads : {1, 2}) {
    const std::string what = stem + " threads=" + std::to_string(threads);
    check_16bit(what + " FLOAT16", decode_as<std::uint16_t>(f, v.bytes, DType::Float16, threads), v.want,
                ref_half_value, ref_to_half());
    check_16bit(what + " BFLOAT16", decode_as<std::uint16_t>(f, v.bytes, DType::BFloat16, threads), v.want,
                ref_bf16_value, ref_to_bf16());
    const std::vector<double> wide = decode_as<double>(f, v.bytes, DType::Double, threads);
    ASSERT_EQ(wide.size(), v.want.size());
    for (std::size_t i = 0; i < wide.size(); ++i) {
      if (std::isnan(v.want[i])) {
        EXPECT_TRUE(std::isnan(wide[i])) << what << " DOUBLE " << i;
      } else {
        ASSERT_EQ(std::bit_cast<std::uint64_t>(wide[i]), std::bit_cast<std::uint64_t>(static_cast<double>(v.want[i])))
            << what << " DOUBLE element " << i;
      }
    }
  }
}

class OutputDtypes : public ::testing::TestWithParam<const BlockFormat*> {};

TEST_P(OutputDtypes, QuantizerAndEdgeBlocks) {
  const BlockFormat& f = *GetParam();
  const std::string stem = "gguf/blocks/" + std::string(f.format_id.substr(5));
  check_all_dtypes(f, stem);
  check_all_dtypes(f, stem + ".edge");
}

std::vector<const BlockFormat*> rows() {
  std::vector<const BlockFormat*> r;
  for (const BlockFormat& f : block_formats()) r.push_back(&f);
  return r;
}

INSTANTIATE_TEST_SUITE_P(AllFormats, OutputDtypes, ::testing::ValuesIn(rows()),
                         [](const auto& info) { return std::string(info.param->ggml_name); });

// Plain types whose values float32 holds exactly: the float expectation is the value.
TEST(OutputDtypes, PlainTypesExactInFloat32) {
  for (const char* name : {"f32", "f16", "bf16", "i8", "i16"}) {
    SCOPED_TRACE(name);
    check_all_dtypes(*find_format(name), std::string("gguf/blocks/") + name);
  }
}

// A tensor big enough for many thread chunks: every thread count gives identical bytes.
TEST(OutputDtypes, ThreadCountsAgreeOnALargeTensor) {
  const BlockFormat& f = *find_format("gguf:q4_k");
  const std::vector<std::byte> edge = read_file_bytes(testdata_path("gguf/blocks/q4_k.edge.bin"));
  std::vector<std::byte> big;
  for (int i = 0; i < 200; ++i) big.insert(big.end(), edge.begin(), edge.end());  // 9600 blocks, ~9.4 MiB of f32
  for (DType out : {DType::Float, DType::Float16}) {
    const std::size_t size = dtype_info(out).bits / 8;
    const std::uint64_t blocks = big.size() / f.block_bytes;
    std::vector<std::byte> one(blocks * 256 * size), many(one.size());
    decode_blocks(f, big, 0, blocks, out, one.data(), 1);
    for (int threads : {2, 3, 0}) {
      decode_blocks(f, big, 0, blocks, out, many.data(), threads);
      EXPECT_EQ(one, many) << "threads=" << threads;
    }
  }
}

}  // namespace
}  // namespace onnxq
