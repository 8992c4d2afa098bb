// Golden tests: every block format quantizes byte for byte as ggml does (testdata/quantize/, written
// by scripts/gen-quant-expectations with ggml's own functions), with and without an importance
// matrix, on 1 and several threads. Only the decoding code's folders: these run under qemu in the
// AArch64 cross build too, where the same bytes must come out.
#include <gtest/gtest.h>

#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "expected_npy.hpp"
#include "ggml_compare.hpp"
#include "onnxq/decode/quantize_rows.hpp"
#include "onnxq/formats/format.hpp"

namespace onnxq {
namespace {

using testing::read_file_bytes;
using testing::testdata_path;

struct InputSet {
  std::string name;
  std::uint64_t n_per_row;
  bool extreme;  // magnitudes where ggml's grid searches abort
};

const InputSet kSets[] = {{"common", 256, false}, {"long", 2048, false}, {"extreme", 256, true}};

bool aborts_in_ggml_on_extremes(const BlockFormat& f) {
  for (const char* name : {"IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ3_XXS", "IQ3_S", "IQ1_S", "IQ1_M"})
    if (f.gguf_name == name) return true;
  return false;
}

std::vector<float> floats_of(const std::string& relative) {
  const std::vector<std::byte> bytes = read_file_bytes(testdata_path(relative));
  std::vector<float> values(bytes.size() / sizeof(float));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  return values;
}

std::vector<std::byte> quantized(const BlockFormat& f, const std::vector<float>& x, std::uint64_t n_per_row,
                                 std::span<const float> importance, int threads) {
  const std::uint64_t rows = x.size() / n_per_row;
  std::vector<std::byte> out(rows * quantized_row_bytes(f, n_per_row));
  quantize_rows({&f, DType::Float, x.data(), rows, n_per_row, importance, out.data()}, threads);
  return out;
}

// The first differing byte as "row R, block B, byte K", or "" when equal.
std::string first_difference(const BlockFormat& f, std::span<const std::byte> got, std::span<const std::byte> want,
                             std::uint64_t n_per_row) {
  if (got.size() != want.size()) return "sizes differ";
  const std::uint64_t row_bytes = quantized_row_bytes(f, n_per_row);
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i])
      return "row " + std::to_string(i / row_bytes) + ", block " + std::to_string(i % row_bytes / f.block_bytes) +
             ", byte " + std::to_string(i % f.block_bytes);
  return "";
}

class QuantizeGgmlBytes : public ::testing::TestWithParam<std::size_t> {};

TEST_P(QuantizeGgmlBytes, EqualGgmlWithAndWithoutImportanceOnEveryThreadCount) {
  const BlockFormat& f = block_formats()[GetParam()];
  std::string id(f.format_id.substr(5));  // "gguf:q4_k" -> "q4_k"
  for (const InputSet& set : kSets) {
    if (set.extreme && aborts_in_ggml_on_extremes(f)) continue;
    SCOPED_TRACE(set.name + "." + id);
    const std::vector<float> x = floats_of("quantize/" + set.name + ".input.f32");
    const std::vector<float> importance = floats_of("quantize/" + set.name + ".importance.f32");
    const std::vector<std::byte> want = read_file_bytes(testdata_path("quantize/" + set.name + "." + id + ".bin"));
    ASSERT_EQ(importance.size(), set.n_per_row);
    const std::uint64_t one_pass = x.size() / set.n_per_row * quantized_row_bytes(f, set.n_per_row);
    const bool has_plain = !quantize_requires_importance(f);
    ASSERT_EQ(want.size(), (has_plain ? 2 : 1) * one_pass);
    const std::span<const std::byte> want_plain(want.data(), has_plain ? one_pass : 0);
    const std::span<const std::byte> want_weighted(want.data() + want_plain.size(), one_pass);
    for (int threads : {1, 3}) {
      if (has_plain) {
        EXPECT_EQ(first_difference(f, quantized(f, x, set.n_per_row, {}, threads), want_plain, set.n_per_row), "")
            << "without importance, " << threads << " threads";
      }
      EXPECT_EQ(first_difference(f, quantized(f, x, set.n_per_row, importance, threads), want_weighted, set.n_per_row),
                "")
          << "with importance, " << threads << " threads";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllBlockFormats, QuantizeGgmlBytes, ::testing::Range<std::size_t>(0, 27),
                         [](const auto& info) { return std::string(block_formats()[info.param].gguf_name); });

// Decoding our bytes gives what decoding ggml's gives: the round trip a user sees.
TEST(QuantizeRoundTrip, DecodingOurBytesEqualsDecodingGgmlsForEveryFormat) {
  const std::vector<float> x = floats_of("quantize/long.input.f32");
  const std::vector<float> importance = floats_of("quantize/long.importance.f32");
  for (const BlockFormat& f : block_formats()) {
    SCOPED_TRACE(std::string(f.gguf_name));
    const std::string id(f.format_id.substr(5));
    const std::vector<std::byte> want = read_file_bytes(testdata_path("quantize/long." + id + ".bin"));
    const std::vector<std::byte> ours = quantized(f, x, 2048, importance, 2);
    ASSERT_LE(ours.size(), want.size());
    const std::span<const std::byte> theirs(want.data() + want.size() - ours.size(), ours.size());
    EXPECT_EQ(testing::decode_f32(f, ours, 1), testing::decode_f32(f, theirs, 1));
  }
}

}  // namespace
}  // namespace onnxq
