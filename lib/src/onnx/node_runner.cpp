// Runs nodes: each checked against its registry row, then that row's kernel called; and graphs,
// one output at a time over the nodes it needs.
#include "onnxq/onnx/node_runner.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include <set>

#include "onnx/external_data.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/ops/dequantize_packed.hpp"

namespace onnxq {
namespace {

std::string join(std::span<const std::string_view> names) {
  std::string s;
  for (auto n : names) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

// Arity and attributes; whether each input has a value is the caller's to check.
void check_node_against_schema(const OnnxNode& node, const OpSchema& schema) {
  const std::string op = node.op_type + "-" + std::to_string(schema.since_version);
  // Trailing empty names are absent optional inputs; these operators have none.
  std::size_t given = node.inputs.size();
  while (given > 0 && node.inputs[given - 1].empty()) --given;
  if (given != schema.inputs.size())
    invalid_input(op + " takes " + std::to_string(schema.inputs.size()) + " inputs (" + join(schema.inputs) +
                  "), the node has " + std::to_string(given));
  for (std::size_t k = 0; k < schema.inputs.size(); ++k)
    if (node.inputs[k].empty())
      invalid_input(op + " input " + std::to_string(k) + " (" + std::string(schema.inputs[k]) + ") is required");
  if (node.outputs.size() != schema.outputs.size())
    invalid_input(op + " has " + std::to_string(schema.outputs.size()) + " output(s) (" + join(schema.outputs) +
                  "), the node lists " + std::to_string(node.outputs.size()));
  for (const NodeAttribute& a : node.attributes) {
    const OpAttributeSchema* spec = nullptr;
    for (const auto& s : schema.attributes)
      if (s.name == a.name) spec = &s;
    if (!spec) invalid_input(op + " has no attribute '" + a.name + "'");
    if (spec->type != a.type)
      invalid_input(op + " attribute '" + a.name + "' must be " + std::string(attribute_type_name(spec->type)) +
                    ", got " + std::string(attribute_type_name(a.type)));
  }
  for (const auto& s : schema.attributes)
    if (s.required && !node.find_attribute(s.name))
      invalid_input(op + " requires attribute '" + std::string(s.name) + "'");
}

// A graph that declares an input's type or fixed dims must get a tensor that has them.
void check_against_value_info(const Tensor& t, const ValueInfo& info, std::size_t k) {
  const std::string label = "input " + std::to_string(k) + " '" + info.name + "'";
  if (info.dtype != DType::Undefined && t.dtype() != info.dtype)
    invalid_input(label + " is " + std::string(dtype_info(t.dtype()).onnx_name) + ", the graph declares " +
                  std::string(dtype_info(info.dtype).onnx_name));
  if (!info.has_shape) return;
  bool ok = info.dims.size() == t.rank();
  for (std::size_t d = 0; ok && d < info.dims.size(); ++d) ok = info.dims[d] < 0 || info.dims[d] == t.shape()[d];
  if (!ok) {
    std::string declared = "[";
    for (std::size_t d = 0; d < info.dims.size(); ++d)
      declared += (d ? ", " : "") + (info.dims[d] < 0 ? std::string("?") : std::to_string(info.dims[d]));
    invalid_input(label + " has shape " + shape_to_string(t.shape()) + ", the graph declares " + declared + "]");
  }
}

}  // namespace

std::vector<Tensor> run_node(const OnnxNode& node, std::int64_t opset, std::span<const Tensor* const> inputs) {
  if (auto reason = unsupported_reason(node, opset)) fail(ErrorKind::Unsupported, *reason);
  const OpSchema* schema = find_op_schema(node.op_type, opset);
  check_node_against_schema(node, *schema);
  for (std::size_t k = 0; k < schema->inputs.size(); ++k)
    if (k >= inputs.size() || inputs[k] == nullptr)
      invalid_input(node.op_type + "-" + std::to_string(schema->since_version) + " input " + std::to_string(k) + " (" +
                    std::string(schema->inputs[k]) + ") is required");
  std::vector<Tensor> outputs;
  outputs.push_back(schema->kernel(node, inputs.first(schema->inputs.size())));
  return outputs;
}

GraphRun::GraphRun(const OnnxModel& model, std::span<const Tensor> inputs, std::string source)
    : model_(model), inputs_(inputs), source_(std::move(source)) {
  if (inputs.size() != model.inputs.size())
    invalid_input("the model has " + std::to_string(model.inputs.size()) + " inputs, got " +
                  std::to_string(inputs.size()));
  for (std::size_t k = 0; k < inputs.size(); ++k) check_against_value_info(inputs[k], model.inputs[k], k);
}

Tensor GraphRun::compute(const std::string& name) const {
  // The values given before any node runs, found by name; an external one is read on use.
  auto given = [&](const std::string& n) -> std::optional<Tensor> {
    for (std::size_t k = 0; k < inputs_.size(); ++k)
      if (model_.inputs[k].name == n) return inputs_[k];
    for (const auto& t : model_.initializers)
      if (t.name == n) return t.tensor;
    for (const auto& t : model_.external_initializers)
      if (t.name == n) return read_external_tensor(t, source_);
    return std::nullopt;
  };
  // Nodes are in topological order (decode_onnx_model): walking back from the last marks the
  // ones `name` needs, and running those forward meets every input before its use.
  std::set<std::string> wanted{name};
  std::vector<bool> needed(model_.nodes.size(), false);
  bool produced = false;
  for (std::size_t k = model_.nodes.size(); k-- > 0;) {
    const OnnxNode& node = model_.nodes[k];
    for (const auto& out : node.outputs)
      if (wanted.count(out)) needed[k] = true;
    if (!needed[k]) continue;
    produced = produced || std::find(node.outputs.begin(), node.outputs.end(), name) != node.outputs.end();
    for (const auto& in : node.inputs)
      if (!in.empty()) wanted.insert(in);
  }
  if (!produced) {
    if (auto value = given(name)) return *value;
    invalid_argument(source_ + ": the graph has no value '" + name + "'");
  }
  std::map<std::string, Tensor> values;
  for (std::size_t k = 0; k < model_.nodes.size(); ++k) {
    if (!needed[k]) continue;
    const OnnxNode& node = model_.nodes[k];
    std::vector<Tensor> held;  // given values this node reads, alive for its run
    held.reserve(node.inputs.size());
    std::vector<const Tensor*> node_inputs;
    for (const std::string& in : node.inputs) {
      if (in.empty()) {
        node_inputs.push_back(nullptr);
        continue;
      }
      auto it = values.find(in);
      if (it != values.end()) {
        node_inputs.push_back(&it->second);
        continue;
      }
      auto value = given(in);
      if (!value) invalid_input(source_ + ": node input '" + in + "' has no value");
      held.push_back(std::move(*value));
      node_inputs.push_back(&held.back());
    }
    std::vector<Tensor> outs = run_node(node, model_.opset_for(node), node_inputs);
    for (std::size_t j = 0; j < node.outputs.size() && j < outs.size(); ++j)
      if (!node.outputs[j].empty()) values[node.outputs[j]] = std::move(outs[j]);
  }
  return values.at(name);
}

std::optional<StreamableOutput> GraphRun::streamable(const std::string& name) const {
  const OnnxNode* node = nullptr;
  for (const OnnxNode& n : model_.nodes)
    if (n.outputs.size() == 1 && n.outputs[0] == name) node = &n;
  if (!node || node->inputs.size() != 1) return std::nullopt;
  const ExternalTensor* input = nullptr;
  for (const auto& t : model_.external_initializers)
    if (t.name == node->inputs[0]) input = &t;
  const std::int64_t opset = model_.opset_for(*node);
  if (!input || unsupported_reason(*node, opset)) return std::nullopt;  // compute() runs or reports it
  check_node_against_schema(*node, *find_op_schema(node->op_type, opset));
  const BlockFormat* format = nullptr;
  StreamableOutput out;
  if (node->op_type == "DequantizePacked") {
    if (input->dtype != DType::UInt8 || input->dims.size() != 1) return std::nullopt;  // compute() reports it
    DequantizePackedAttributes attrs;
    attrs.format = node->find_attribute("format")->s;
    attrs.shape = node->find_attribute("shape")->ints;
    if (const NodeAttribute* d = node->find_attribute("output_dtype")) {
      const DTypeInfo* info = find_dtype(static_cast<std::int32_t>(d->i));
      if (!info || d->i != static_cast<std::int32_t>(d->i)) return std::nullopt;
      attrs.output_dtype = info->dtype;
    }
    format = &check_dequantize_packed(attrs, input->length);  // the operator's own checks
    out.shape = attrs.shape;
    out.dtype = attrs.output_dtype;
  } else if (node->op_type == "Identity" || node->op_type == "Cast") {
    for (const BlockFormat& f : all_formats())
      if (!f.is_block_format() && f.plain_dtype == input->dtype) format = &f;
    out.shape = input->dims;
    out.dtype = input->dtype;
    if (node->op_type == "Cast") {
      const DTypeInfo* to = find_dtype(static_cast<std::int32_t>(node->find_attribute("to")->i));
      if (!to) return std::nullopt;
      out.dtype = to->dtype;
    }
    if (!format || !can_decode_to(*format, out.dtype)) return std::nullopt;
  } else {
    return std::nullopt;
  }
  out.source = detail::external_blocks(*input, *format, source_);
  return out;
}

std::vector<Tensor> run_model(const OnnxModel& model, std::span<const Tensor> inputs) {
  const GraphRun run(model, inputs);
  std::vector<Tensor> outputs;
  for (const ValueInfo& out : model.outputs) outputs.push_back(run.compute(out.name));
  return outputs;
}

}  // namespace onnxq
