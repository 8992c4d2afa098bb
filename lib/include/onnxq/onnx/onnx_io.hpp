// ONNX files in onnxq's own types: serialized TensorProto (.pb) <-> Tensor, and
// ModelProto (.onnx) <-> OnnxModel, a graph of nodes. The protobuf classes stay
// inside lib/src/onnx/; callers see only these plain structs.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
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
// A tensor file of the ONNX commands: a serialized TensorProto when the name ends in ".pb", else a
// .npy. Either stays one of the process's inputs (io/same_file.hpp) after it is read and closed, so
// that no output of the process replaces it.
Tensor read_tensor_file(const std::string& path);
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

// An initializer whose bytes live in another file (TensorProto external_data). Decoding checks
// where it points (lib/src/onnx/external_data.cpp); the bytes are read only when a node needs them.
struct ExternalTensor {
  std::string name;
  DType dtype = DType::Undefined;
  Shape dims;
  std::string location;      // as the model writes it: relative to the model's folder
  std::uint64_t offset = 0;  // byte offset in that file
  std::uint64_t length = 0;  // byte count: always the dtype's size times the element count
  std::string path;          // the checked file (model folder / location); empty for a model being written
};

struct OnnxModel {
  std::int64_t ir_version = 0;
  std::vector<OpsetImport> opset_imports;
  std::string graph_name;
  std::vector<OnnxNode> nodes;    // decoded: in an order where each node follows its inputs' producers
  std::vector<ValueInfo> inputs;  // graph inputs that are not initializers, in graph order
  std::vector<ValueInfo> outputs;
  std::vector<NamedTensor> initializers;
  std::vector<ExternalTensor> external_initializers;
  std::vector<std::pair<std::string, std::string>> metadata_props;

  // The version imported for a node's domain; 0 when the model imports none.
  std::int64_t opset_for(const OnnxNode& node) const;
};

// True for "" and "ai.onnx".
bool is_default_onnx_domain(std::string_view domain);

// Decodes a model and checks its graph: unique names, every node input a graph input, an
// initializer or an earlier node's output (nodes are reordered topologically; a cycle or a
// missing input is InvalidInput naming the node), every graph output produced, an opset
// imported for every node's domain. External initializers are resolved against `model_dir`
// (their rules: external_data.cpp); with an empty `model_dir` they are InvalidInput.
OnnxModel decode_onnx_model(std::span<const std::byte> bytes, const std::string& source,
                            const std::string& model_dir = {});
// Reads `path`, resolving external data against its folder.
OnnxModel read_onnx_model_file(const std::string& path);
std::string encode_model(const OnnxModel& model);

// Reads an external initializer's bytes, checking again that the file holds them (it may have
// changed since decoding). `source` names the model in errors.
Tensor read_external_tensor(const ExternalTensor& tensor, const std::string& source);

// The IR version make-case writes for a default-domain opset: the IR of the ONNX release that
// introduced the opset (9 -> 4, 11 -> 6, 13 -> 7, ...), and 10 from opset 21 on, as the
// backend-test cases onnxq ships declare for opsets 23 and 29.
std::int64_t ir_version_for_opset(std::int64_t opset);

}  // namespace onnxq
