// ONNX files in onnxq's own types: serialized TensorProto (.pb) <-> Tensor, and
// single-node ModelProto (.onnx) <-> SingleNodeModel. The protobuf classes stay
// inside lib/src/onnx/; callers see only these plain structs.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "onnxq/core/tensor.hpp"

namespace onnxq {

struct NamedTensor {
  std::string name;
  Tensor tensor;
};

// How encode_tensor_proto stores the elements. Strings always use string_data.
enum class TensorProtoEncoding {
  RawData,      // raw_data, little-endian (what the ONNX backend test files use)
  TypedFields,  // float_data / double_data / int32_data / int64_data / uint64_data
};

// Decodes one serialized TensorProto, from raw_data or from the typed fields.
// `source` names the bytes in error messages (usually the file path).
// Throws InvalidInput for bad bytes or a data length that disagrees with the dims,
// Unsupported for external data and segments.
NamedTensor decode_tensor_proto(std::span<const std::byte> bytes, const std::string& source);
NamedTensor read_tensor_proto_file(const std::string& path);
std::string encode_tensor_proto(const Tensor& tensor, const std::string& name,
                                TensorProtoEncoding encoding = TensorProtoEncoding::RawData);

// AttributeProto.AttributeType codes.
enum class AttributeType : std::int32_t {
  Undefined = 0,
  Float = 1,
  Int = 2,
  String = 3,
  Tensor = 4,
  Graph = 5,
  Floats = 6,
  Ints = 7,
  Strings = 8,
  Tensors = 9,
  Graphs = 10,
  SparseTensor = 11,
  SparseTensors = 12,
  TypeProto = 13,
  TypeProtos = 14,
};
std::string_view attribute_type_name(AttributeType type);  // "INT", "INTS", ...

// One node attribute; only the member that `type` names is meaningful. Graph, sparse and
// type-proto attributes keep their type but no value (no onnxq operator takes them).
struct NodeAttribute {
  std::string name;
  AttributeType type = AttributeType::Undefined;
  std::int64_t i = 0;
  float f = 0;
  std::string s;
  Tensor t;
  std::vector<std::int64_t> ints;
  std::vector<float> floats;
  std::vector<std::string> strings;
  std::vector<Tensor> tensors;
};

struct OnnxNode {
  std::string name;
  std::string op_type;
  std::string domain;               // as written: "" and "ai.onnx" both mean the default domain
  std::vector<std::string> inputs;  // "" marks an absent optional input
  std::vector<std::string> outputs;
  std::vector<NodeAttribute> attributes;

  const NodeAttribute* find_attribute(std::string_view attr_name) const;
};

// A graph input or output. dims: -1 for a symbolic or unknown dimension.
struct ValueInfo {
  std::string name;
  DType dtype = DType::Undefined;  // Undefined when the graph does not say
  bool has_shape = false;
  std::vector<std::int64_t> dims;
};

struct OpsetImport {
  std::string domain;
  std::int64_t version = 0;
};

struct SingleNodeModel {
  std::int64_t ir_version = 0;
  std::vector<OpsetImport> opset_imports;
  std::string graph_name;
  OnnxNode node;
  std::vector<ValueInfo> inputs;  // graph inputs that are not initializers, in graph order
  std::vector<ValueInfo> outputs;
  std::vector<NamedTensor> initializers;

  // The version imported for the node's domain; 0 when the model imports none.
  std::int64_t node_opset() const;
};

// True for "" and "ai.onnx".
bool is_default_onnx_domain(std::string_view domain);

// Decodes a model whose graph is exactly one node, and checks that the node's inputs and
// outputs are bound to graph inputs/initializers and graph outputs by name. Anything else
// (several nodes, unbound names, no opset import for the node's domain) is InvalidInput.
SingleNodeModel decode_single_node_model(std::span<const std::byte> bytes, const std::string& source);
SingleNodeModel read_single_node_model_file(const std::string& path);
std::string encode_model(const SingleNodeModel& model);

// The IR version make-case writes for a default-domain opset: the IR of the ONNX release that
// introduced the opset (9 -> 4, 11 -> 6, 13 -> 7, ...), and 10 from opset 21 on, as the
// backend-test cases onnxq ships declare for opsets 23 and 29.
std::int64_t ir_version_for_opset(std::int64_t opset);

}  // namespace onnxq
