// The wiring of a decoded graph: names, bindings, topological order, opsets.
#pragma once

#include <cstddef>
#include <string>

#include "onnxq/onnx/onnx_io.hpp"

namespace onnxq::detail {

// "node 'name' (Op)", or "node #k (Op)" for a node without a name.
std::string node_label(const OnnxNode& node, std::size_t index);

// Checks the graph and sorts m.nodes so that each follows the producers of its inputs (Kahn's
// algorithm, keeping file order among ready nodes). Throws InvalidInput naming the node for a
// missing input, a cycle, a name produced twice; naming the output for one nothing produces.
void check_graph(OnnxModel& m, const std::string& source);

}  // namespace onnxq::detail
