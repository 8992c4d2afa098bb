// model_info and the JSON of info, list and tokens: the facts of a small llama-like model, and each
// JSON field as the front ends print it (absent keys null, per-layer values as arrays, shards).
#include "onnxq/model/model_info.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_models.hpp"

namespace onnxq {
namespace {

using namespace testing;
using Json = nlohmann::ordered_json;

TEST(ModelInfo, FactsAndInfoJson) {
  LlamaOptions o;
  o.head_count_kv = {2, 2, 1, 2};
  GgufBuilder b = llama_like(o);
  b.kv_u32("tokenizer.ggml.bos_token_id", 1);
  const BuiltModel m(b);
  const ModelInfo info = model_info(m.file);
  EXPECT_EQ(info.scope(), "file");
  EXPECT_FALSE(info.split);
  EXPECT_EQ(info.tensor_count, m.file.tensors().size());
  EXPECT_EQ(info.file_bytes, m.bytes.size());
  ASSERT_EQ(info.per_type.size(), 4u);  // F32, F16, Q4_0, Q8_0
  EXPECT_EQ(info.per_type.at(kTypeF16).bytes, 4096u);

  const Json j = Json::parse(model_info_json(info, "tiny.gguf"));
  EXPECT_EQ(j["file"], "tiny.gguf");
  EXPECT_EQ(j["scope"], "file");
  EXPECT_EQ(j["endianness"], "little");
  EXPECT_EQ(j["file_size"], m.bytes.size());
  EXPECT_EQ(j["n_kv"], m.file.metadata().size());
  EXPECT_EQ(j["parameters"], info.total.elements);
  EXPECT_EQ(j["types"][1].dump(),
            R"({"type":"F16","ggml_type":1,"format_id":"","tensors":1,"elements":2048,"bytes":4096})");
  EXPECT_EQ(j["shards"][0]["present"], true);
  const Json& model = j["model"];
  EXPECT_EQ(model["architecture"], "llama");
  EXPECT_EQ(model["file_type"].dump(), R"({"id":15,"name":"MOSTLY_Q4_K_M","guessed":false})");
  EXPECT_EQ(model["head_count"], 8);
  EXPECT_EQ(model["head_count_kv"], Json({2, 2, 1, 2}));
  EXPECT_EQ(model["expert_count"], nullptr);
  EXPECT_EQ(model["rope"]["scaling_type"], nullptr);
  EXPECT_EQ(model["kv_cache_layers"], Json({0, 1, 2, 3}));
  EXPECT_EQ(j["tokenizer"]["model"], "llama");
  EXPECT_EQ(j["tokenizer"]["special"][0].dump(),
            R"({"role":"bos","key":"tokenizer.ggml.bos_token_id","id":1,"text":"t1"})");
  EXPECT_EQ(j["tokenizer"]["merges"], nullptr);
  EXPECT_EQ(model.begin().key(), "architecture");  // fields in their documented order
}

TEST(ModelInfo, NoTokenizerIsNull) {
  const BuiltModel llama(llama_like());
  EXPECT_EQ(Json::parse(model_info_json(model_info(llama.file), "x"))["model"]["head_count_kv"], 2);  // a scalar key
  GgufBuilder b;
  b.kv_str("general.architecture", "llama");
  const BuiltModel m(b);
  const Json j = Json::parse(model_info_json(model_info(m.file), "x"));
  EXPECT_EQ(j["tokenizer"], nullptr);
  EXPECT_EQ(j["model"]["head_count_kv"], nullptr);
  EXPECT_EQ(j["types"], Json::array());
}

TEST(ModelInfo, TypeLabels) {
  EXPECT_EQ(ggml_type_label(kTypeQ4_0), "Q4_0");
  EXPECT_EQ(ggml_type_label(142), "type 142");
}

TEST(ModelInfo, TensorListJson) {
  const BuiltModel m(llama_like());
  std::vector<const TensorInfo*> chosen{m.file.find_tensor("blk.0.attn_k.weight")};
  const Json j = Json::parse(tensor_list_json(m.file, chosen));
  ASSERT_EQ(j.size(), 1u);
  const TensorInfo& t = *chosen[0];
  EXPECT_EQ(j[0].dump(), Json({{"name", "blk.0.attn_k.weight"},
                               {"type", "Q4_0"},
                               {"ggml_type", 2},
                               {"format_id", "gguf:q4_0"},
                               {"ne", {64, 16}},
                               {"shape", {16, 64}},
                               {"elements", 1024},
                               {"bytes", 576},
                               {"offset_in_data", t.offset_in_data},
                               {"file_offset", t.file_offset},
                               {"shard", 0},
                               {"size_inferred", false}})
                             .dump());
}

TEST(ModelInfo, TokensJson) {
  const std::string text = "a\nb";
  ChosenToken with_all{{3, text, 4, -1.5f}, {"bos", "eos"}};
  ChosenToken bare{{7, "x", std::nullopt, std::nullopt}, {}};
  ChosenToken unknown_type{{8, "y", 42, 0.0f}, {}};
  const std::vector<ChosenToken> rows{with_all, bare, unknown_type};
  const Json j = Json::parse(tokens_json(rows));
  EXPECT_EQ(j[0].dump(), R"({"id":3,"text":"a\nb","type":"user_defined","score":-1.5,"roles":["bos","eos"]})");
  EXPECT_EQ(j[1].dump(), R"({"id":7,"text":"x","type":null,"score":null,"roles":[]})");
  EXPECT_EQ(j[2]["type"], 42);
}

}  // namespace
}  // namespace onnxq
