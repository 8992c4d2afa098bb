// The comparison of two models as JSON (onnxq diff --json): the models as named, the tensors only
// in one, and each shared tensor with its value differences only when it was compared.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "onnxq/diff/model_diff.hpp"

namespace onnxq {
namespace {

TEST(DifferenceJson, EveryField) {
  ModelDifference d;
  d.only_a = {"x"};
  TensorDifference same{"s", "Q4_0", "Q4_0", {2, 32}, {2, 32}, true, true, {}};
  same.values.count = 64;
  TensorDifference changed{"c", "F16", "Q8_0", {32}, {32}, false, true, {}};
  changed.values.count = 32;
  changed.values.differing = 5;
  changed.values.nonfinite = 1;
  changed.values.max_abs = 0.5;
  changed.values.sum_sq = 2.0;
  TensorDifference reshaped{"r", "F32", "F32", {4}, {2, 2}, false, false, {}};
  d.tensors = {same, changed, reshaped};
  const auto j = nlohmann::ordered_json::parse(model_difference_json("a.gguf", "b.gguf", d));
  EXPECT_EQ(j["a"], "a.gguf");
  EXPECT_EQ(j["b"], "b.gguf");
  EXPECT_EQ(j["only_in_a"], nlohmann::json({"x"}));
  EXPECT_EQ(j["only_in_b"], nlohmann::json::array());
  EXPECT_EQ(j["tensors"][0].dump(),
            R"({"name":"s","type_a":"Q4_0","type_b":"Q4_0","shape_a":[2,32],"shape_b":[2,32],"identical_bytes":true,)"
            R"("compared":true,"elements":64,"differing":0,"nonfinite_differences":0,"max_abs":0.0,"rms":0.0})");
  EXPECT_EQ(j["tensors"][1]["differing"], 5);
  EXPECT_EQ(j["tensors"][1]["nonfinite_differences"], 1);
  EXPECT_EQ(j["tensors"][1]["rms"].get<double>(), changed.values.rms());
  EXPECT_EQ(j["tensors"][2].dump(),
            R"({"name":"r","type_a":"F32","type_b":"F32","shape_a":[4],"shape_b":[2,2],"identical_bytes":false,)"
            R"("compared":false})");
}

}  // namespace
}  // namespace onnxq
