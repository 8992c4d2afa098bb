// Graph checks at decode time, so that running a model never meets an unbound name or a cycle.
#include "onnx/graph_check.hpp"

#include <map>
#include <set>

#include "onnxq/core/error.hpp"

namespace onnxq::detail {

std::string node_label(const OnnxNode& node, std::size_t index) {
  return (node.name.empty() ? "node #" + std::to_string(index) : "node '" + node.name + "'") + " (" + node.op_type +
         ")";
}

void check_graph(OnnxModel& m, const std::string& source) {
  // Values available before any node runs.
  std::set<std::string> given;
  for (const auto& v : m.inputs)
    if (!given.insert(v.name).second) invalid_input(source + ": graph input '" + v.name + "' is declared twice");
  auto add_initializer = [&](const std::string& name) {
    if (name.empty()) invalid_input(source + ": initializer without a name");
    if (!given.insert(name).second) invalid_input(source + ": initializer '" + name + "' is declared twice");
  };
  for (const auto& t : m.initializers) add_initializer(t.name);
  for (const auto& t : m.external_initializers) add_initializer(t.name);

  std::map<std::string, std::size_t> producer;
  for (std::size_t k = 0; k < m.nodes.size(); ++k) {
    const OnnxNode& node = m.nodes[k];
    if (m.opset_for(node) <= 0)
      invalid_input(source + ": " + node_label(node, k) + ": model imports no opset for the node's domain '" +
                    node.domain + "'");
    for (const auto& name : node.outputs) {
      if (name.empty()) continue;
      if (given.count(name) || !producer.emplace(name, k).second)
        invalid_input(source + ": " + node_label(node, k) + ": output '" + name + "' is produced twice");
    }
  }
  // Kahn's algorithm: pending counts the inputs each node still waits for.
  std::vector<std::size_t> pending(m.nodes.size(), 0);
  std::vector<std::vector<std::size_t>> consumers(m.nodes.size());
  for (std::size_t k = 0; k < m.nodes.size(); ++k) {
    for (std::size_t j = 0; j < m.nodes[k].inputs.size(); ++j) {
      const std::string& name = m.nodes[k].inputs[j];
      if (name.empty() || given.count(name)) continue;
      auto it = producer.find(name);
      if (it == producer.end())
        invalid_input(source + ": " + node_label(m.nodes[k], k) + ": input " + std::to_string(j) + " '" + name +
                      "' is neither a graph input, an initializer nor a node's output");
      ++pending[k];
      consumers[it->second].push_back(k);
    }
  }
  std::vector<std::size_t> order;
  std::set<std::size_t> ready;  // ordered: among ready nodes, file order is kept
  for (std::size_t k = 0; k < m.nodes.size(); ++k)
    if (pending[k] == 0) ready.insert(k);
  while (!ready.empty()) {
    const std::size_t k = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(k);
    for (std::size_t c : consumers[k])
      if (--pending[c] == 0) ready.insert(c);
  }
  if (order.size() != m.nodes.size())
    for (std::size_t k = 0; k < m.nodes.size(); ++k)
      if (pending[k] > 0) invalid_input(source + ": " + node_label(m.nodes[k], k) + " is in a cycle or fed by one");
  std::vector<OnnxNode> sorted;
  sorted.reserve(order.size());
  for (std::size_t k : order) sorted.push_back(std::move(m.nodes[k]));
  m.nodes = std::move(sorted);

  if (m.outputs.empty()) invalid_input(source + ": graph has no outputs");
  std::set<std::string> outputs;
  for (const auto& out : m.outputs) {
    if (!outputs.insert(out.name).second) invalid_input(source + ": graph output '" + out.name + "' is declared twice");
    if (!producer.count(out.name) && !given.count(out.name))
      invalid_input(source + ": graph output '" + out.name + "' is not produced by any node");
  }
}

}  // namespace onnxq::detail
