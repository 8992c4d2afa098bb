// Golden tests through the GGUF reader: every tensor of testdata/zoo.gguf decodes bit for bit to
// ggml's float32 output (NaN compared by position), the wide plain types also exactly in their own
// dtype, and the 1-D and 3-D tensors keep their shapes. (tests/unit/reference/ggml_vectors_test.cpp
// checks the same formats on loose blocks, without a GGUF file.)
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "expected_npy.hpp"
#include "ggml_compare.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/formats/format.hpp"
#include "onnxq/gguf/model.hpp"

namespace onnxq {
namespace {

using testing::count_mismatches;
using testing::decode_f32;
using testing::decode_scalar;
using testing::ExpectedArray;
using testing::load_expected_npy;
using testing::testdata_path;

class ZooBlockFormats : public ::testing::TestWithParam<const BlockFormat*> {};

TEST_P(ZooBlockFormats, TensorMatchesGgml) {
  const BlockFormat& f = *GetParam();
  const GgufModel zoo = GgufModel::open(testdata_path("zoo.gguf"));
  const std::string name = std::string(f.format_id.substr(5)) + ".weight";
  const TensorInfo* t = zoo.find_tensor(name);
  ASSERT_NE(t, nullptr) << name;
  ASSERT_EQ(t->format, &f);
  const ExpectedArray want = load_expected_npy(testdata_path("gguf/expected/" + name + ".f32.npy"));
  EXPECT_EQ(want.shape, t->onnx_shape());
  EXPECT_EQ(count_mismatches(decode_f32(f, zoo.tensor_bytes(*t), 2), want.f32_bits(), name), 0u);
  EXPECT_EQ(count_mismatches(decode_scalar(f, zoo.tensor_bytes(*t)), want.f32_bits(), name + " scalar reference"), 0u);
}

INSTANTIATE_TEST_SUITE_P(AllFormats, ZooBlockFormats, ::testing::ValuesIn(testing::block_format_ptrs()),
                         [](const auto& info) { return std::string(info.param->ggml_name); });

// Plain types: the zoo tensors; integers and F64 also exactly in their own dtype.
class ZooPlainTypes : public ::testing::TestWithParam<const BlockFormat*> {};

TEST_P(ZooPlainTypes, ToFloat32MatchesTheCast) {
  const BlockFormat& f = *GetParam();
  const GgufModel zoo = GgufModel::open(testdata_path("zoo.gguf"));
  const std::string name = std::string(f.ggml_name) + ".weight";
  const TensorInfo* t = zoo.find_tensor(name);
  ASSERT_NE(t, nullptr);
  const ExpectedArray want = load_expected_npy(testdata_path("gguf/expected/" + name + ".f32.npy"));
  EXPECT_EQ(count_mismatches(decode_f32(f, zoo.tensor_bytes(*t), 1), want.f32_bits(), name), 0u);
}

class ZooNativeTypes : public ZooPlainTypes {};

TEST_P(ZooNativeTypes, NativeDtypeIsExact) {
  const BlockFormat& f = *GetParam();
  const std::string name = std::string(f.ggml_name) + ".weight";
  const std::string path = testdata_path("gguf/expected/" + name + ".native.npy");
  const GgufModel zoo = GgufModel::open(testdata_path("zoo.gguf"));
  const TensorInfo* t = zoo.find_tensor(name);
  ASSERT_NE(t, nullptr);
  const ExpectedArray want = load_expected_npy(path);
  EXPECT_EQ(default_decode_dtype(f), dtype_info(f.plain_dtype).is_integer ? f.plain_dtype : DType::Float);
  std::vector<std::byte> got(want.data.size());
  decode_blocks(f, zoo.tensor_bytes(*t), 0, t->element_count, f.plain_dtype, got.data(), 1);
  EXPECT_EQ(got, want.data);
  if (f.plain_dtype == DType::Double) return;
  // Integers converted to DOUBLE are exact.
  std::vector<double> wide(t->element_count);
  decode_blocks(f, zoo.tensor_bytes(*t), 0, t->element_count, DType::Double, wide.data(), 1);
  const std::size_t size = f.block_bytes;
  for (std::size_t i = 0; i < wide.size(); ++i) {
    std::int64_t v = 0;
    std::memcpy(&v, want.data.data() + i * size, size);           // little-endian
    if (size < 8) v = (v << (64 - 8 * size)) >> (64 - 8 * size);  // sign-extend
    EXPECT_EQ(wide[i], static_cast<double>(v)) << name << " element " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(AllPlainTypes, ZooPlainTypes, ::testing::ValuesIn(testing::plain_formats()),
                         [](const auto& info) { return std::string(info.param->ggml_name); });

// The types whose values float32 cannot hold exactly have a .native.npy expectation.
std::vector<const BlockFormat*> zoo_native_rows() {
  std::vector<const BlockFormat*> rows;
  for (const BlockFormat* f : testing::plain_formats())
    if (f->plain_dtype == DType::Double || dtype_info(f->plain_dtype).is_integer) rows.push_back(f);
  return rows;
}

INSTANTIATE_TEST_SUITE_P(WideTypes, ZooNativeTypes, ::testing::ValuesIn(zoo_native_rows()),
                         [](const auto& info) { return std::string(info.param->ggml_name); });

// The 1-D and 3-D zoo tensors: shapes in ONNX order and bits.
TEST(ZooShapes, OneAndThreeDimensionalTensors) {
  const GgufModel zoo = GgufModel::open(testdata_path("zoo.gguf"));
  for (const char* name : {"vec_1d.q8_0", "cube_3d.q4_k", "cube_3d.f16"}) {
    const TensorInfo* t = zoo.find_tensor(name);
    ASSERT_NE(t, nullptr) << name;
    const ExpectedArray want = load_expected_npy(testdata_path(std::string("gguf/expected/") + name + ".f32.npy"));
    EXPECT_EQ(want.shape, t->onnx_shape()) << name;
    const std::uint64_t blocks = t->byte_size / t->format->block_bytes;
    std::vector<std::uint32_t> got(blocks * t->format->block_elements);
    decode_blocks(*t->format, zoo.tensor_bytes(*t), 0, blocks, DType::Float, got.data(), 0);
    EXPECT_EQ(count_mismatches(got, want.f32_bits(), name), 0u);
  }
}

}  // namespace
}  // namespace onnxq
