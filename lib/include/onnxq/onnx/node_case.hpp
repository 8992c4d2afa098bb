// Node-test cases for one operator, as `onnxq make-case --op` writes them: a model of one node over
// the given input tensors, its outputs computed by onnxq.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "onnxq/onnx/node_runner.hpp"
#include "onnxq/onnx/onnx_io.hpp"

namespace onnxq {

// NAME=VALUE as an attribute of `schema`: integers and floats as text, lists as "2,32" or
// "[2, 32]" ("[]" is the empty list), strings as they are; output_dtype also takes a dtype name
// (float16, bf16, DOUBLE ...). Throws Error(InvalidArgument) naming the attribute, or the
// attributes the operator has when it has none of that name.
NodeAttribute parse_node_attribute(std::string_view spec, const OpSchema& schema);

// The names of the operators in the registry, each once, comma-separated: for messages.
std::string operator_names();

struct NodeCase {
  OnnxModel model;  // one node of the schema; graph inputs and outputs named after its own
  std::vector<Tensor> outputs;
};

// The case of one node of `schema` with `attributes` over `inputs` (in the schema's input order):
// the graph's inputs and outputs typed and shaped as the tensors are, the outputs computed by
// run_model. Throws as run_model does.
NodeCase make_node_case(const OpSchema& schema, std::int64_t opset, std::int64_t ir_version, std::string graph_name,
                        std::vector<NodeAttribute> attributes, const std::vector<Tensor>& inputs);

}  // namespace onnxq
