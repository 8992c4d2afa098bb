// The reader against testdata/zoo.gguf and the manifest ggml wrote beside it.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "onnxq/gguf/model.hpp"

namespace onnxq {
namespace {

const std::string kZoo = std::string(ONNXQ_TESTDATA_DIR) + "/zoo.gguf";

nlohmann::json zoo_manifest() {
  std::ifstream in(std::string(ONNXQ_TESTDATA_DIR) + "/manifest.json");
  return nlohmann::json::parse(in)["files"]["zoo.gguf"];
}

std::uint64_t hex_bits(const nlohmann::json& j) { return std::stoull(j.get<std::string>(), nullptr, 16); }

TEST(GgufManifest, HeaderMatches) {
  const auto m = zoo_manifest();
  const GgufModel model = GgufModel::open(kZoo);
  const GgufFile& s = model.primary();
  EXPECT_EQ(s.version, m["gguf_version"].get<std::uint32_t>());
  EXPECT_FALSE(s.big_endian);
  EXPECT_EQ(s.alignment, m["alignment"].get<std::uint64_t>());
  EXPECT_EQ(s.data_offset, m["data_offset"].get<std::uint64_t>());
  EXPECT_EQ(s.bytes.size(), m["size"].get<std::uint64_t>());
  EXPECT_EQ(s.metadata.size(), m["n_kv"].get<std::size_t>());
  EXPECT_EQ(model.tensors().size(), m["n_tensors"].get<std::size_t>());
}

TEST(GgufManifest, EveryTensorMatches) {
  const auto m = zoo_manifest();
  const GgufModel model = GgufModel::open(kZoo);
  ASSERT_EQ(model.tensors().size(), m["tensors"].size());
  for (std::size_t i = 0; i < model.tensors().size(); ++i) {
    const TensorInfo& t = model.tensors()[i];
    const auto& e = m["tensors"][i];
    SCOPED_TRACE(e["name"].get<std::string>());
    EXPECT_EQ(t.name, e["name"].get<std::string>());
    EXPECT_EQ(t.format->ggml_type, e["type_id"].get<std::uint32_t>());
    EXPECT_EQ(t.format->gguf_name, e["type"].get<std::string>());
    EXPECT_EQ(t.format->ggml_name, e["ggml_type_name"].get<std::string>());
    EXPECT_EQ(t.ne, e["ne"].get<std::vector<std::uint64_t>>());
    EXPECT_EQ(t.onnx_shape(), e["onnx_shape"].get<std::vector<std::int64_t>>());
    EXPECT_EQ(t.element_count, e["n_elements"].get<std::uint64_t>());
    EXPECT_EQ(t.offset_in_data, e["offset_in_data"].get<std::uint64_t>());
    EXPECT_EQ(t.file_offset, e["file_offset"].get<std::uint64_t>());
    EXPECT_EQ(t.byte_size, e["nbytes"].get<std::uint64_t>());
    EXPECT_EQ(model.tensor_bytes(t).size(), t.byte_size);
    EXPECT_EQ(model.find_tensor(t.name), &t);
  }
  EXPECT_EQ(model.find_tensor("no.such.tensor"), nullptr);
}

// Compares one GGUF value with the manifest's description of it.
void expect_value(const GgufValue& v, const std::string& type, const nlohmann::json& e, const nlohmann::json& value) {
  ASSERT_EQ(gguf_type_name(v.type()), type);
  if (type == "str") {
    EXPECT_EQ(v.as_string(), value.get<std::string>());
  } else if (type == "bool") {
    EXPECT_EQ(v.as_bool(), value.get<bool>());
    if (e.contains("byte")) {
      EXPECT_EQ(v.bool_byte(), e["byte"].get<int>());
    }
  } else if (type == "f32") {
    if (e.contains("bits")) {
      EXPECT_EQ(v.raw_bits(), hex_bits(e["bits"]));
    }
    EXPECT_EQ(v.as_f32(), value.get<float>());
  } else if (type == "f64") {
    if (e.contains("bits")) {
      EXPECT_EQ(v.raw_bits(), hex_bits(e["bits"]));
    }
    EXPECT_EQ(v.as_f64(), value.get<double>());
  } else if (type[0] == 'u') {
    if (e.contains("value_str")) {
      EXPECT_EQ(std::to_string(v.as_u64()), e["value_str"].get<std::string>());
    }
    EXPECT_EQ(v.as_u64(), value.get<std::uint64_t>());
  } else {
    if (e.contains("value_str")) {
      EXPECT_EQ(std::to_string(v.as_i64()), e["value_str"].get<std::string>());
    }
    EXPECT_EQ(v.as_i64(), value.get<std::int64_t>());
  }
}

TEST(GgufManifest, EveryMetadataValueMatches) {
  const auto m = zoo_manifest();
  const GgufModel model = GgufModel::open(kZoo);
  ASSERT_EQ(model.metadata().size(), m["metadata"].size());
  for (std::size_t i = 0; i < model.metadata().size(); ++i) {
    const GgufKeyValue& kv = model.metadata()[i];
    const auto& e = m["metadata"][i];
    const std::string type = e["type"].get<std::string>();
    SCOPED_TRACE(e["key"].get<std::string>());
    EXPECT_EQ(kv.key, e["key"].get<std::string>());
    ASSERT_EQ(model.find_metadata(kv.key), &kv.value);
    if (type != "arr") {
      expect_value(kv.value, type, e, e["value"]);
      continue;
    }
    ASSERT_EQ(kv.value.type(), GgufType::Array);
    const GgufArray a = kv.value.as_array();
    const std::string elem = e["arr_type"].get<std::string>();
    EXPECT_EQ(gguf_type_name(a.element_type()), elem);
    ASSERT_EQ(a.size(), e["count"].get<std::uint64_t>());
    std::size_t j = 0;
    a.for_each([&](const GgufValue& item) {
      nlohmann::json desc = nlohmann::json::object();
      if (e.contains("values_str")) desc["value_str"] = e["values_str"][j];
      if (e.contains("bits")) desc["bits"] = e["bits"][j];
      expect_value(item, elem, desc, e["values"][j]);
      // Random access agrees with the walk.
      expect_value(a.at(j), elem, desc, e["values"][j]);
      ++j;
      return true;
    });
    EXPECT_EQ(j, a.size());
  }
}

TEST(GgufManifest, TensorViewsKeepTheMappingAlive) {
  std::span<const std::byte> bytes;
  std::shared_ptr<const void> keep;
  {
    const GgufModel model = GgufModel::open(kZoo);
    const TensorInfo* t = model.find_tensor("i8.weight");
    ASSERT_NE(t, nullptr);
    bytes = model.tensor_bytes(*t);
    keep = model.keep_alive(*t);
  }
  ASSERT_EQ(bytes.size(), 144u);
  volatile std::byte b = bytes[143];  // still mapped: reading must not fault
  (void)b;
  EXPECT_NE(keep, nullptr);
}

}  // namespace
}  // namespace onnxq
