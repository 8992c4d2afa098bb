// The operator registry and the opset-dependent semantics the runner picks:
// OneHot 9 vs 11 (negative indices), Unsqueeze's axes attribute (1, 11) vs input (13+).
#include <gtest/gtest.h>

#include <cstring>

#include "onnxq/core/error.hpp"
#include "onnxq/onnx/node_runner.hpp"
#include "op_tensors.hpp"

namespace onnxq {
namespace {

using testing::typed_tensor;

Tensor i64(Shape shape, std::vector<std::int64_t> v) { return typed_tensor(DType::Int64, std::move(shape), v); }

NodeAttribute int_attribute(const std::string& name, std::int64_t v) {
  NodeAttribute a;
  a.name = name;
  a.type = AttributeType::Int;
  a.i = v;
  return a;
}
NodeAttribute ints_attribute(const std::string& name, std::vector<std::int64_t> v) {
  NodeAttribute a;
  a.name = name;
  a.type = AttributeType::Ints;
  a.ints = std::move(v);
  return a;
}

OnnxModel model_of(const std::string& op, std::int64_t opset, std::vector<std::string> inputs,
                   std::vector<NodeAttribute> attrs = {}) {
  OnnxModel m;
  m.nodes.emplace_back();
  m.opset_imports.push_back({"", opset});
  m.nodes[0].op_type = op;
  m.nodes[0].inputs = inputs;
  m.nodes[0].outputs = {"y"};
  m.nodes[0].attributes = std::move(attrs);
  for (const auto& name : inputs) m.inputs.push_back({name, DType::Undefined, false, {}});
  m.outputs.push_back({"y", DType::Undefined, false, {}});
  return m;
}

std::string error_of(const OnnxModel& m, std::span<const Tensor> inputs) {
  try {
    run_model(m, inputs);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(NodeRunner, OneHotNegativeIndexIsOffAtOpset9AndCountsFromTheBackAtOpset11) {
  const std::vector<Tensor> inputs = {i64({2}, {-1, 1}), i64({}, {3}),
                                      typed_tensor<std::int32_t>(DType::Int32, {2}, {0, 5})};
  auto values = [](const Tensor& t) {
    std::vector<std::int32_t> v(t.element_count());
    std::memcpy(v.data(), t.bytes().data(), t.bytes().size());
    return v;
  };
  const auto v9 = run_model(model_of("OneHot", 9, {"indices", "depth", "values"}), inputs);
  ASSERT_EQ(v9.size(), 1u);
  EXPECT_EQ(v9[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(values(v9[0]), (std::vector<std::int32_t>{0, 0, 0, 0, 5, 0}));
  for (std::int64_t opset : {11, 13, 23}) {
    const auto v11 = run_model(model_of("OneHot", opset, {"indices", "depth", "values"}), inputs);
    EXPECT_EQ(values(v11[0]), (std::vector<std::int32_t>{0, 0, 5, 0, 5, 0})) << "opset " << opset;
  }
  // Opset 10 still has OneHot-9.
  EXPECT_EQ(values(run_model(model_of("OneHot", 10, {"indices", "depth", "values"}), inputs)[0]),
            (std::vector<std::int32_t>{0, 0, 0, 0, 5, 0}));
}

TEST(NodeRunner, UnsqueezeAxesAttributeBefore13InputFrom13) {
  const Tensor data = typed_tensor<float>(DType::Float, {3}, {1, 2, 3});
  // Opset 11 allows negative axes in the attribute.
  const auto v11 = run_model(model_of("Unsqueeze", 11, {"data"}, {ints_attribute("axes", {-1})}), std::vector{data});
  EXPECT_EQ(v11[0].shape(), (Shape{3, 1}));
  // Opset 1 takes only non-negative axes.
  const auto v1 = run_model(model_of("Unsqueeze", 1, {"data"}, {ints_attribute("axes", {0})}), std::vector{data});
  EXPECT_EQ(v1[0].shape(), (Shape{1, 3}));
  EXPECT_FALSE(error_of(model_of("Unsqueeze", 1, {"data"}, {ints_attribute("axes", {-1})}), std::vector{data}).empty());
  // From 13 the axes are an input; the attribute is gone.
  const auto v13 = run_model(model_of("Unsqueeze", 23, {"data", "axes"}), std::vector{data, i64({2}, {0, 2})});
  EXPECT_EQ(v13[0].shape(), (Shape{1, 3, 1}));
  EXPECT_EQ(v13[0].at<float>(2), 3.0f);
  EXPECT_EQ(error_of(model_of("Unsqueeze", 13, {"data"}, {ints_attribute("axes", {0})}), std::vector{data}),
            "Unsqueeze-13 takes 2 inputs (data, axes), the node has 1");
  EXPECT_EQ(error_of(model_of("Unsqueeze", 13, {"data", "axes"}, {ints_attribute("axes", {0})}),
                     std::vector{data, i64({1}, {0})}),
            "Unsqueeze-13 has no attribute 'axes'");
  EXPECT_EQ(error_of(model_of("Unsqueeze", 11, {"data"}), std::vector{data}), "Unsqueeze-11 requires attribute 'axes'");
}

TEST(NodeRunner, AttributeTypesAreChecked) {
  NodeAttribute bits;
  bits.name = "bits";
  bits.type = AttributeType::Float;
  bits.f = 3;
  const std::vector<Tensor> inputs = {typed_tensor<std::uint8_t>(DType::UInt8, {1}, {0xFF}), i64({}, {2})};
  EXPECT_EQ(error_of(model_of("Unpack", 29, {"X", "count"}, {bits}), inputs),
            "Unpack-29 attribute 'bits' must be INT, got FLOAT");
  const auto ok = run_model(model_of("Unpack", 29, {"X", "count"}, {int_attribute("bits", 3)}), inputs);
  EXPECT_EQ(ok[0].shape(), (Shape{2}));
  EXPECT_EQ(ok[0].at<std::uint8_t>(0), 7);
}

TEST(NodeRunner, DequantizePackedAttributes) {
  NodeAttribute format;
  format.name = "format";
  format.type = AttributeType::String;
  format.s = "gguf:q8_0";
  // One q8_0 block: f16 scale 0.5 (0x3800), then 32 int8 codes 0..31.
  std::vector<std::uint8_t> block = {0x00, 0x38};
  for (int j = 0; j < 32; ++j) block.push_back(static_cast<std::uint8_t>(j));
  const Tensor x = typed_tensor(DType::UInt8, {34}, block);
  const auto y =
      run_model(model_of("DequantizePacked", 29, {"x"}, {format, ints_attribute("shape", {32})}), std::vector{x});
  ASSERT_EQ(y[0].dtype(), DType::Float);
  EXPECT_EQ(y[0].at<float>(3), 1.5f);
  const auto y64 = run_model(model_of("DequantizePacked", 29, {"x"},
                                      {format, ints_attribute("shape", {32}), int_attribute("output_dtype", 11)}),
                             std::vector{x});
  EXPECT_EQ(y64[0].dtype(), DType::Double);
  EXPECT_EQ(error_of(model_of("DequantizePacked", 29, {"x"}, {ints_attribute("shape", {32})}), std::vector{x}),
            "DequantizePacked-29 requires attribute 'format'");
}

TEST(NodeRunner, UnsupportedReasons) {
  OnnxNode node;
  node.op_type = "Foo";
  EXPECT_EQ(unsupported_reason(node, 13), "op Foo not supported");
  node.op_type = "OneHot";
  EXPECT_EQ(unsupported_reason(node, 8), "OneHot at opset 8 not supported (onnxq has versions 9, 11)");
  EXPECT_EQ(unsupported_reason(node, 9), std::nullopt);
  node.domain = "com.microsoft";
  EXPECT_EQ(unsupported_reason(node, 9), "op com.microsoft.OneHot not supported");
  node.domain = "ai.onnx";
  EXPECT_EQ(unsupported_reason(node, 9), std::nullopt);
  node.op_type = "Unpack";
  EXPECT_NE(unsupported_reason(node, 28), std::nullopt);  // Unpack appeared in opset 29
  EXPECT_EQ(unsupported_reason(node, 29), std::nullopt);
}

TEST(NodeRunner, RegistryPicksTheLatestVersionAtOrBelowTheOpset) {
  EXPECT_EQ(find_op_schema("Unsqueeze", 12)->since_version, 11);
  EXPECT_EQ(find_op_schema("Unsqueeze", 13)->since_version, 13);
  EXPECT_EQ(find_op_schema("Unsqueeze", 23)->since_version, 13);
  EXPECT_EQ(find_op_schema("Unsqueeze", 10)->since_version, 1);
  EXPECT_EQ(find_op_schema("OneHot", 10)->since_version, 9);
  EXPECT_EQ(find_op_schema("OneHot", 8), nullptr);
  EXPECT_EQ(default_opset("Unpack"), 29);
  EXPECT_EQ(default_opset("DequantizePacked"), 29);
  EXPECT_EQ(default_opset("OneHot"), 9);
  EXPECT_EQ(default_opset("Unsqueeze"), 23);
  for (const OpSchema& s : operator_registry()) EXPECT_TRUE(s.kernel != nullptr) << s.op_type << "-" << s.since_version;
}

TEST(NodeRunner, InputsMustMatchTheGraphsDeclaredTypes) {
  OnnxModel m = model_of("Unsqueeze", 23, {"data", "axes"});
  m.inputs[0].dtype = DType::Float;
  m.inputs[0].has_shape = true;
  m.inputs[0].dims = {-1, 2};
  const Tensor axes = i64({1}, {0});
  EXPECT_EQ(error_of(m, std::vector{typed_tensor<double>(DType::Double, {1, 2}, {1, 2}), axes}),
            "input 0 'data' is DOUBLE, the graph declares FLOAT");
  EXPECT_EQ(error_of(m, std::vector{typed_tensor<float>(DType::Float, {1, 3}, {1, 2, 3}), axes}),
            "input 0 'data' has shape [1, 3], the graph declares [?, 2]");
  EXPECT_EQ(error_of(m, std::vector{typed_tensor<float>(DType::Float, {5, 2}, std::vector<float>(10)), axes}), "");
  EXPECT_EQ(error_of(m, std::vector{axes}), "the model has 2 inputs, got 1");
}

}  // namespace
}  // namespace onnxq
