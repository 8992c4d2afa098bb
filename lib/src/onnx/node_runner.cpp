// Runs one node: checks it against its registry schema, then calls the operator.
// The kernel table below binds each operator version to onnxq's implementation.
#include "onnxq/onnx/node_runner.hpp"

#include <map>

#include "onnx/op_kernels.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/ops/dequantize_packed.hpp"
#include "onnxq/ops/onehot.hpp"
#include "onnxq/ops/unpack.hpp"
#include "onnxq/ops/unsqueeze.hpp"

namespace onnxq {
namespace {

// Attribute types were checked against the schema before a kernel runs.
std::optional<std::int64_t> int_attr(const OnnxNode& node, std::string_view name) {
  const NodeAttribute* a = node.find_attribute(name);
  return a ? std::optional(a->i) : std::nullopt;
}

Tensor run_dequantize_packed_29(const OnnxNode& node, std::span<const Tensor* const> in) {
  const NodeAttribute* format = node.find_attribute("format");
  const NodeAttribute* shape = node.find_attribute("shape");
  DequantizePackedAttributes attrs;
  attrs.format = format->s;
  attrs.shape = shape->ints;
  if (auto code = int_attr(node, "output_dtype")) {
    const DTypeInfo* info = find_dtype(static_cast<std::int32_t>(*code));
    if (!info || *code != static_cast<std::int32_t>(*code))
      invalid_argument("DequantizePacked: output_dtype " + std::to_string(*code) + " is not an ONNX data type");
    attrs.output_dtype = info->dtype;
  }
  return dequantize_packed(*in[0], attrs);
}

Tensor run_onehot(const OnnxNode& node, std::span<const Tensor* const> in, OneHotVersion version) {
  return onehot(*in[0], *in[1], *in[2], int_attr(node, "axis").value_or(-1), version);
}
Tensor run_onehot_9(const OnnxNode& node, std::span<const Tensor* const> in) {
  return run_onehot(node, in, OneHotVersion::V9);
}
Tensor run_onehot_11(const OnnxNode& node, std::span<const Tensor* const> in) {
  return run_onehot(node, in, OneHotVersion::V11);
}

Tensor run_unpack_29(const OnnxNode& node, std::span<const Tensor* const> in) {
  UnpackAttributes attrs;
  attrs.axis = int_attr(node, "axis").value_or(-1);
  attrs.bits = int_attr(node, "bits");
  attrs.radix = int_attr(node, "radix");
  attrs.group_size = int_attr(node, "group_size");
  return unpack(*in[0], *in[1], attrs);
}

Tensor run_unsqueeze_attr(const OnnxNode& node, std::span<const Tensor* const> in, UnsqueezeVersion version) {
  return unsqueeze(*in[0], node.find_attribute("axes")->ints, version);
}
Tensor run_unsqueeze_1(const OnnxNode& node, std::span<const Tensor* const> in) {
  return run_unsqueeze_attr(node, in, UnsqueezeVersion::V1);
}
Tensor run_unsqueeze_11(const OnnxNode& node, std::span<const Tensor* const> in) {
  return run_unsqueeze_attr(node, in, UnsqueezeVersion::V11);
}
Tensor run_unsqueeze_13(const OnnxNode&, std::span<const Tensor* const> in) { return unsqueeze(*in[0], *in[1]); }

struct KernelRow {
  std::string_view op_type;
  std::int64_t since_version;
  detail::NodeKernel kernel;
};

// An operator version without a kernel here is reported as "not built in" (SKIP in conformance).
constexpr KernelRow kNodeKernels[] = {
    {"DequantizePacked", 29, &run_dequantize_packed_29},
    {"OneHot", 9, &run_onehot_9},
    {"OneHot", 11, &run_onehot_11},
    {"Unpack", 29, &run_unpack_29},
    {"Unsqueeze", 1, &run_unsqueeze_1},
    {"Unsqueeze", 11, &run_unsqueeze_11},
    {"Unsqueeze", 13, &run_unsqueeze_13},
};

std::string join(std::span<const std::string_view> names) {
  std::string s;
  for (auto n : names) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

void check_node_against_schema(const OnnxNode& node, const OpSchema& schema, std::span<const Tensor* const> inputs) {
  const std::string op = node.op_type + "-" + std::to_string(schema.since_version);
  // Trailing empty names are absent optional inputs; these operators have none.
  std::size_t given = node.inputs.size();
  while (given > 0 && node.inputs[given - 1].empty()) --given;
  if (given != schema.inputs.size())
    invalid_input(op + " takes " + std::to_string(schema.inputs.size()) + " inputs (" + join(schema.inputs) +
                  "), the node has " + std::to_string(given));
  for (std::size_t k = 0; k < schema.inputs.size(); ++k)
    if (node.inputs[k].empty() || k >= inputs.size() || inputs[k] == nullptr)
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

namespace detail {
NodeKernel find_node_kernel(std::string_view op_type, std::int64_t since_version) {
  for (const KernelRow& row : kNodeKernels)
    if (row.op_type == op_type && row.since_version == since_version) return row.kernel;
  return nullptr;
}
}  // namespace detail

std::vector<Tensor> run_node(const OnnxNode& node, std::int64_t opset, std::span<const Tensor* const> inputs) {
  if (auto reason = unsupported_reason(node, opset)) fail(ErrorKind::Unsupported, *reason);
  const OpSchema* schema = find_op_schema(node.op_type, opset);
  check_node_against_schema(node, *schema, inputs);
  const detail::NodeKernel kernel = detail::find_node_kernel(schema->op_type, schema->since_version);
  std::vector<Tensor> outputs;
  outputs.push_back(kernel(node, inputs.first(schema->inputs.size())));
  return outputs;
}

std::vector<Tensor> run_model(const SingleNodeModel& model, std::span<const Tensor> inputs) {
  if (inputs.size() != model.inputs.size())
    invalid_input("the model has " + std::to_string(model.inputs.size()) + " inputs, got " +
                  std::to_string(inputs.size()));
  std::map<std::string, const Tensor*> values;
  for (const auto& init : model.initializers) values[init.name] = &init.tensor;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    check_against_value_info(inputs[k], model.inputs[k], k);
    values[model.inputs[k].name] = &inputs[k];
  }
  std::vector<const Tensor*> node_inputs;
  for (const std::string& name : model.node.inputs) {
    if (name.empty()) {
      node_inputs.push_back(nullptr);
      continue;
    }
    auto it = values.find(name);
    if (it == values.end()) invalid_input("node input '" + name + "' has no value");
    node_inputs.push_back(it->second);
  }
  std::vector<Tensor> node_outputs = run_node(model.node, model.node_opset(), node_inputs);
  std::vector<Tensor> outputs;
  for (const ValueInfo& out : model.outputs) {
    for (std::size_t j = 0; j < model.node.outputs.size(); ++j)
      if (model.node.outputs[j] == out.name) outputs.push_back(node_outputs.at(j));
  }
  return outputs;
}

}  // namespace onnxq
