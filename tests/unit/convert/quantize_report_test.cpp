// The quantizer's names and JSON, shared by `onnxq quantize` and onnxq.quantize: which types a
// --tensor-type may name, how a ggml type is shown, and the report `quantize --json` prints.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "onnxq/convert/model_quantizer.hpp"
#include "onnxq/convert/quantize_plan.hpp"

namespace onnxq {
namespace {

TEST(QuantizeReport, OverrideTypesAreBlockFormatsAndFloats) {
  ASSERT_NE(find_override_type("q4_k"), nullptr);
  EXPECT_EQ(find_override_type("Q8_0")->gguf_name, "Q8_0");
  ASSERT_NE(find_override_type("f16"), nullptr);
  EXPECT_NE(find_override_type("bf16"), nullptr);
  EXPECT_EQ(find_override_type("i32"), nullptr);  // a plain type, but not a float
  EXPECT_EQ(find_override_type("q9_9"), nullptr);
  EXPECT_EQ(find_override_type(""), nullptr);
}

TEST(QuantizeReport, TypeNamesAreGgufNamesOrTheNumber) {
  EXPECT_EQ(ggml_type_display_name(12), "Q4_K");
  EXPECT_EQ(ggml_type_display_name(0), "F32");
  EXPECT_EQ(ggml_type_display_name(9999), "type 9999");
}

TEST(QuantizeReport, JsonHoldsTheRequestThePlanAndTheTotals) {
  ModelQuantizeReport r;
  r.input_kind = "gguf";
  r.architecture = "llama";
  r.architecture_known = true;
  r.file_type = 15;  // Q4_K_M
  r.preset = true;
  r.elements = 512;
  r.bytes_before = 1024;
  r.bytes_after = 288;
  r.file_size = 4096;
  QuantizedTensorRow& t = r.tensors.emplace_back();
  t.name = "blk.0.ffn_up.weight";
  t.ne = {256, 2};
  t.plan.from_type = 1;  // F16
  t.plan.to_type = 12;   // Q4_K
  t.plan.bytes_before = 1024;
  t.plan.bytes_after = 288;
  t.plan.reason = "Q4_K_M";
  t.importance = true;

  const auto j = nlohmann::ordered_json::parse(model_quantize_report_json(r, "in.gguf", "out.gguf", false, "Q4_K_M"));
  EXPECT_EQ(j["input"], "in.gguf");
  EXPECT_EQ(j["output"], "out.gguf");
  EXPECT_EQ(j["dry_run"], false);
  EXPECT_EQ(j["type"], "Q4_K_M");
  EXPECT_EQ(j["preset"], true);
  EXPECT_EQ(j["file_type"], 15);
  EXPECT_EQ(j["file_type_name"], "MOSTLY_Q4_K_M");
  EXPECT_EQ(j["bits_per_weight_before"], 16.0);
  EXPECT_EQ(j["bits_per_weight_after"], 4.5);
  EXPECT_EQ(j["file_size"], 4096);
  ASSERT_EQ(j["tensors"].size(), 1u);
  const auto& row = j["tensors"][0];
  EXPECT_EQ(row["name"], "blk.0.ffn_up.weight");
  EXPECT_EQ(row["shape"], nlohmann::ordered_json::array({256, 2}));
  EXPECT_EQ(row["from"], "F16");
  EXPECT_EQ(row["to"], "Q4_K");
  EXPECT_EQ(row["copied"], false);
  EXPECT_EQ(row["importance"], true);
  EXPECT_EQ(row["reason"], "Q4_K_M");
  EXPECT_EQ(j.begin().key(), "input");

  // A dry run writes nothing: its output is null.
  EXPECT_TRUE(
      nlohmann::ordered_json::parse(model_quantize_report_json(r, "in.gguf", "", true, "q4_k"))["output"].is_null());
}

}  // namespace
}  // namespace onnxq
