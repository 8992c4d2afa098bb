// The safetensors export plan: each tensor's dtype (the ONNX export's rule), shards cut greedily in
// file order by decoded size (a tensor past the limit alone), file names, headers and the index.
#include "onnxq/onnx/safetensors_export.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "gguf_builder.hpp"

namespace onnxq {
namespace {

using testing::BuilderTensor;
using testing::GgufBuilder;

// a: f32 x8 (32 B), b: q8_0 x32 (128 B as f32), c: f16 x4 (8 B kept f16), d: i8 x3 (3 B kept i8).
std::vector<std::uint8_t> model_bytes() {
  GgufBuilder b;
  b.kv_str("general.name", "tiny").kv_u32("general.file_type", 7).kv_str("other.key", "x");
  for (auto [name, n, type] : {std::tuple{"a", 8u, 0u}, {"b", 32u, 8u}, {"c", 4u, 1u}, {"d", 3u, 24u}}) {
    BuilderTensor t;
    t.name = name;
    t.ne = {n};
    t.type = type;
    b.tensor(t);
  }
  return b.build();
}

std::vector<const TensorInfo*> all(const GgufModel& m) {
  std::vector<const TensorInfo*> out;
  for (const TensorInfo& t : m.tensors()) out.push_back(&t);
  return out;
}

nlohmann::json header_json(const std::string& header) {
  std::uint64_t n = 0;
  std::memcpy(&n, header.data(), 8);
  EXPECT_EQ(header.size(), 8 + n);
  return nlohmann::json::parse(header.substr(8));
}

TEST(SafetensorsExport, OneFileKeepsPlainTypesAndDecodesBlocksToF32) {
  const auto bytes = model_bytes();
  const GgufModel m = testing::parse_gguf(bytes);
  const auto plan = plan_safetensors_export(m, all(m), std::nullopt, "out.safetensors", 0);
  ASSERT_EQ(plan.files.size(), 1u);
  EXPECT_EQ(plan.files[0].name, "out.safetensors");
  EXPECT_TRUE(plan.index_name.empty());
  EXPECT_EQ(plan.bytes_out, 32u + 128 + 8 + 3);
  EXPECT_EQ(plan.bytes_in, 32u + 34 + 8 + 3);
  const auto h = header_json(plan.files[0].header);
  EXPECT_EQ(h["a"]["dtype"], "F32");
  EXPECT_EQ(h["b"]["dtype"], "F32");
  EXPECT_EQ(h["c"]["dtype"], "F16");
  EXPECT_EQ(h["d"]["dtype"], "I8");
  EXPECT_EQ(h["b"]["data_offsets"], nlohmann::json::array({32, 160}));
  EXPECT_EQ(h["__metadata__"], nlohmann::json({{"format", "pt"}, {"general.name", "tiny"}}));
  const auto bf16 = plan_safetensors_export(m, all(m), DType::BFloat16, "-", 0);
  const auto hb = header_json(bf16.files[0].header);
  EXPECT_EQ(hb["b"]["dtype"], "BF16");
  EXPECT_EQ(hb["c"]["dtype"], "BF16");
  EXPECT_EQ(hb["d"]["dtype"], "I8");
  EXPECT_EQ(bf16.files[0].name, "-");
}

TEST(SafetensorsExport, ShardsAreCutGreedilyAndIndexed) {
  const auto bytes = model_bytes();
  const GgufModel m = testing::parse_gguf(bytes);
  // 40 bytes: a (32) alone, b (128) past the limit alone, c + d (11) together.
  const auto plan = plan_safetensors_export(m, all(m), std::nullopt, "dir/m.safetensors", 40);
  ASSERT_EQ(plan.files.size(), 3u);
  EXPECT_EQ(plan.files[0].name, "dir/m-00001-of-00003.safetensors");
  EXPECT_EQ(plan.files[2].name, "dir/m-00003-of-00003.safetensors");
  EXPECT_EQ(plan.files[0].tensors.size(), 1u);
  EXPECT_EQ(plan.files[1].tensors.size(), 1u);
  ASSERT_EQ(plan.files[2].tensors.size(), 2u);
  EXPECT_EQ(header_json(plan.files[2].header)["d"]["data_offsets"], nlohmann::json::array({8, 11}));
  EXPECT_EQ(plan.index_name, "dir/m.safetensors.index.json");
  const auto index = nlohmann::json::parse(plan.index_text);
  EXPECT_EQ(index["metadata"]["total_size"], 171);
  EXPECT_EQ(index["weight_map"], nlohmann::json({{"a", "m-00001-of-00003.safetensors"},
                                                 {"b", "m-00002-of-00003.safetensors"},
                                                 {"c", "m-00003-of-00003.safetensors"},
                                                 {"d", "m-00003-of-00003.safetensors"}}));
}

}  // namespace
}  // namespace onnxq
