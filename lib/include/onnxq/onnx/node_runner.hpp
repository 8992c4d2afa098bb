// Running ONNX graphs with onnxq's operators. The operator registry has one row per operator
// version onnxq runs: its inputs, outputs and attributes, and its kernel; the opset a model
// imports picks the version (OneHot 9 vs 11, Unsqueeze's axes attribute before 13).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "onnxq/formats/block_source.hpp"
#include "onnxq/onnx/onnx_io.hpp"

namespace onnxq {

struct OpAttributeSchema {
  std::string_view name;
  AttributeType type;
  bool required;
};

// Inputs are in schema order and all present (run_node has checked arity and attributes).
using NodeKernel = Tensor (*)(const OnnxNode& node, std::span<const Tensor* const> inputs);

// One operator version, valid for opsets [since_version, next version's since_version).
struct OpSchema {
  std::string_view op_type;
  std::int64_t since_version;
  std::span<const std::string_view> inputs;  // all required
  std::span<const std::string_view> outputs;
  std::span<const OpAttributeSchema> attributes;
  NodeKernel kernel;  // nullptr: onnxq knows the operator but its kernel is not built in
};

// Every operator version in the registry, grouped by op_type, oldest first.
std::span<const OpSchema> operator_registry();

// The schema for op_type at `opset` in the default domain; nullptr when onnxq has none.
const OpSchema* find_op_schema(std::string_view op_type, std::int64_t opset);

// nullopt when onnxq can run this node at this opset; else the reason, e.g.
// "op Foo not supported" or "OneHot at opset 8 not supported (onnxq has versions 9, 11)".
std::optional<std::string> unsupported_reason(const OnnxNode& node, std::int64_t opset);

// The opset make-case writes for an op: the version the operator texts describe
// (Unpack/DequantizePacked 29, OneHot 9, Unsqueeze 23). nullopt for an unknown op.
std::optional<std::int64_t> default_opset(std::string_view op_type);

// Runs the node: `inputs` lines up with node.inputs (nullptr for an absent optional input).
// Checks arity and attribute names/types against the schema, then calls the operator.
// Throws Unsupported when unsupported_reason() would say so; operator errors pass through.
std::vector<Tensor> run_node(const OnnxNode& node, std::int64_t opset, std::span<const Tensor* const> inputs);

// A graph output that one node (DequantizePacked, Identity or Cast) makes from an external
// initializer: the initializer's blocks, read from its file a range at a time, and what the node
// decodes them into. A caller streams it with the library's decoder (onnxq/stream/tensor_stream.hpp),
// the same decode as `dequant`, in bounded memory.
struct StreamableOutput {
  std::shared_ptr<const BlockSource> source;
  Shape shape;  // ONNX order
  DType dtype;
};

// One run of a model on its inputs. Each output is computed on request from the nodes it needs,
// and nothing is kept between requests: memory stays bounded by one output's computation, not
// the graph's. External initializers are read when a node needs them.
class GraphRun {
 public:
  // `inputs` lines up with model.inputs and is checked against their declared types and shapes.
  // Both must outlive the run.
  GraphRun(const OnnxModel& model, std::span<const Tensor> inputs, std::string source = "model");
  // The value of a graph output (or any graph value) by name. Throws InvalidArgument for an
  // unknown name; operator errors pass through.
  Tensor compute(const std::string& name) const;
  // The output as a stream when it is one such node (the node checked as compute() would);
  // nullopt for anything else, which compute() computes.
  std::optional<StreamableOutput> streamable(const std::string& name) const;

 private:
  const OnnxModel& model_;
  std::span<const Tensor> inputs_;
  std::string source_;
};

// Runs the model: `inputs` lines up with model.inputs. Returns model.outputs in order.
std::vector<Tensor> run_model(const OnnxModel& model, std::span<const Tensor> inputs);

}  // namespace onnxq
