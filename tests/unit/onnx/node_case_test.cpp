// make-case's engine: NAME=VALUE attributes parsed against an operator's schema, the registry's
// operator names, and a one-node case whose outputs onnxq computes.
#include "onnxq/onnx/node_case.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "onnxq/core/error.hpp"
#include "onnxq/io/same_file.hpp"
#include "onnxq/npy/writer.hpp"

namespace onnxq {
namespace {

const OpSchema& schema(const char* op, std::int64_t opset) { return *find_op_schema(op, opset); }

std::string refusal(const char* spec, const OpSchema& s) {
  try {
    parse_node_attribute(spec, s);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    return e.what();
  }
  return "accepted";
}

TEST(NodeCase, AttributesTakeTheSchemasTypes) {
  const NodeAttribute bits = parse_node_attribute("bits=3", schema("Unpack", 29));
  EXPECT_EQ(bits.name, "bits");
  EXPECT_EQ(bits.type, AttributeType::Int);
  EXPECT_EQ(bits.i, 3);
  const OpSchema& dq = schema("DequantizePacked", 29);
  EXPECT_EQ(parse_node_attribute("shape=2,32", dq).ints, (std::vector<std::int64_t>{2, 32}));
  EXPECT_EQ(parse_node_attribute("shape=[2, 32]", dq).ints, (std::vector<std::int64_t>{2, 32}));
  EXPECT_TRUE(parse_node_attribute("shape=[]", dq).ints.empty());
  EXPECT_EQ(parse_node_attribute("format=gguf:q4_0", dq).s, "gguf:q4_0");
  EXPECT_EQ(parse_node_attribute("output_dtype=float16", dq).i, static_cast<std::int64_t>(DType::Float16));
  EXPECT_EQ(parse_node_attribute("output_dtype=1", dq).i, 1);
}

TEST(NodeCase, MalformedAttributesAreRefusedByName) {
  const OpSchema& unpack = schema("Unpack", 29);
  EXPECT_EQ(refusal("bits", unpack), "'bits' is not NAME=VALUE");
  EXPECT_EQ(refusal("bits=x", unpack), "attribute bits: 'x' is not an integer");
  EXPECT_EQ(refusal("bits=", unpack), "attribute bits: '' is not an integer");
  EXPECT_NE(refusal("bitz=3", unpack).find("Unpack-29 has no attribute 'bitz' (it has: "), std::string::npos);
  EXPECT_EQ(refusal("shape=2,x", schema("DequantizePacked", 29)), "attribute shape: 'x' is not an integer");
  EXPECT_EQ(refusal("output_dtype=nope", schema("DequantizePacked", 29)),
            "attribute output_dtype: unknown dtype 'nope'");
}

TEST(NodeCase, OperatorNamesListEachOnce) {
  const std::string names = operator_names();
  EXPECT_NE(names.find("Unpack"), std::string::npos);
  EXPECT_NE(names.find("DequantizePacked"), std::string::npos);
  EXPECT_EQ(names.find("OneHot"), names.rfind("OneHot"));  // two versions, one name
}

TEST(NodeCase, OneNodeOverTheInputsWithComputedOutputs) {
  const std::vector<std::int64_t> axes = {0};
  const Tensor data = Tensor::zeros(DType::Float, {2, 3});
  const Tensor axes_tensor = Tensor::from_bytes(DType::Int64, {1}, std::as_bytes(std::span(axes)));
  const NodeCase c = make_node_case(schema("Unsqueeze", 23), 23, 10, "g", {}, {data, axes_tensor});
  EXPECT_EQ(c.model.graph_name, "g");
  EXPECT_EQ(c.model.ir_version, 10);
  ASSERT_EQ(c.model.nodes.size(), 1u);
  EXPECT_EQ(c.model.nodes[0].op_type, "Unsqueeze");
  EXPECT_EQ(c.model.nodes[0].inputs, (std::vector<std::string>{"data", "axes"}));
  ASSERT_EQ(c.model.inputs.size(), 2u);
  EXPECT_EQ(c.model.inputs[1].dtype, DType::Int64);
  EXPECT_EQ(c.model.inputs[0].dims, (std::vector<std::int64_t>{2, 3}));
  ASSERT_EQ(c.outputs.size(), 1u);
  EXPECT_EQ(c.outputs[0].shape(), (Shape{1, 2, 3}));
  EXPECT_EQ(c.model.outputs[0].name, "expanded");
  EXPECT_EQ(c.model.outputs[0].dims, (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(c.model.outputs[0].dtype, DType::Float);
  // An operator error passes through.
  const NodeAttribute bits = parse_node_attribute("bits=9", schema("Unpack", 29));
  EXPECT_THROW(make_node_case(schema("Unpack", 29), 29, 10, "g", {bits},
                              {Tensor::zeros(DType::UInt8, {4}), Tensor::zeros(DType::Int64, {})}),
               Error);
}

TEST(ReadTensorFile, PbIsATensorProtoAnythingElseANpyAndBothStayInputs) {
  const auto dir = std::filesystem::temp_directory_path() / ("onnxq_tensor_file_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::vector<std::int64_t> values = {1, -2, 3};
  const Tensor t = Tensor::from_bytes(DType::Int64, {3}, std::as_bytes(std::span(values)));
  const std::string pb = (dir / "x.pb").string(), npy = (dir / "x.data").string();
  std::ofstream(pb, std::ios::binary) << encode_tensor_proto(t, "x", TensorProtoEncoding::TypedFields);
  std::ofstream(npy, std::ios::binary) << npy_bytes(t);
  for (const std::string& path : {pb, npy}) {
    const Tensor read = read_tensor_file(path);
    EXPECT_EQ(read.dtype(), DType::Int64) << path;
    EXPECT_EQ(read.at<std::int64_t>(1), -2) << path;
  }
  // The .pb was read and closed: an output onto it is still refused.
  EXPECT_THROW(refuse_output_onto_input(pb), Error);
  EXPECT_THROW(read_tensor_file((dir / "missing.pb").string()), Error);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace onnxq
