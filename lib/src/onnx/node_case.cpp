#include "onnxq/onnx/node_case.hpp"

#include <cctype>
#include <charconv>
#include <exception>

#include "onnxq/core/error.hpp"

namespace onnxq {
namespace {

std::int64_t parse_int(const std::string& text, const std::string& what) {
  std::int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || text.empty()) invalid_argument(what + ": '" + text + "' is not an integer");
  return v;
}

float parse_float(const std::string& text, const std::string& what) {
  try {
    std::size_t used = 0;
    const float v = std::stof(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  invalid_argument(what + ": '" + text + "' is not a number");
}

// "2,32" or "[2, 32]"; "[]" is the empty list.
std::vector<std::string> split_list(std::string text) {
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') text = text.substr(1, text.size() - 2);
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (!item.empty() || comma != std::string::npos) items.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

ValueInfo value_info_of(const std::string& name, const Tensor& t) { return {name, t.dtype(), true, t.shape()}; }

}  // namespace

NodeAttribute parse_node_attribute(std::string_view spec, const OpSchema& schema) {
  const auto eq = spec.find('=');
  if (eq == std::string_view::npos) invalid_argument("'" + std::string(spec) + "' is not NAME=VALUE");
  NodeAttribute a;
  a.name = spec.substr(0, eq);
  const std::string value(spec.substr(eq + 1));
  const OpAttributeSchema* attr = nullptr;
  std::string known;
  for (const auto& s : schema.attributes) {
    if (s.name == a.name) attr = &s;
    known += (known.empty() ? "" : ", ") + std::string(s.name);
  }
  if (!attr)
    invalid_argument(std::string(schema.op_type) + "-" + std::to_string(schema.since_version) + " has no attribute '" +
                     a.name + "' (it has: " + (known.empty() ? "none" : known) + ")");
  a.type = attr->type;
  const std::string what = "attribute " + a.name;
  switch (a.type) {
    case AttributeType::Int:
      if (a.name == "output_dtype" && !value.empty() && !std::isdigit(static_cast<unsigned char>(value[0])) &&
          value[0] != '-') {
        const auto dtype = parse_dtype_name(value);
        if (!dtype) invalid_argument(what + ": unknown dtype '" + value + "'");
        a.i = static_cast<std::int64_t>(*dtype);
      } else {
        a.i = parse_int(value, what);
      }
      break;
    case AttributeType::Ints:
      for (const auto& item : split_list(value)) a.ints.push_back(parse_int(item, what));
      break;
    case AttributeType::Float: a.f = parse_float(value, what); break;
    case AttributeType::Floats:
      for (const auto& item : split_list(value)) a.floats.push_back(parse_float(item, what));
      break;
    case AttributeType::String: a.s = value; break;
    default: invalid_argument(what + " has a type make-case cannot write");
  }
  return a;
}

std::string operator_names() {
  std::string s;
  std::string_view last;
  for (const OpSchema& schema : operator_registry()) {
    if (schema.op_type == last) continue;
    last = schema.op_type;
    s += (s.empty() ? "" : ", ") + std::string(last);
  }
  return s;
}

NodeCase make_node_case(const OpSchema& schema, std::int64_t opset, std::int64_t ir_version, std::string graph_name,
                        std::vector<NodeAttribute> attributes, const std::vector<Tensor>& inputs) {
  NodeCase c;
  OnnxModel& model = c.model;
  model.ir_version = ir_version;
  model.opset_imports.push_back({"", opset});
  model.graph_name = std::move(graph_name);
  OnnxNode& node = model.nodes.emplace_back();
  node.op_type = schema.op_type;
  node.attributes = std::move(attributes);
  for (std::size_t k = 0; k < inputs.size() && k < schema.inputs.size(); ++k) {
    node.inputs.emplace_back(schema.inputs[k]);
    model.inputs.push_back(value_info_of(node.inputs.back(), inputs[k]));
  }
  // The outputs' types come from running the node; run_model also re-checks everything.
  for (auto name : schema.outputs) {
    node.outputs.emplace_back(name);
    model.outputs.push_back({node.outputs.back(), DType::Undefined, false, {}});
  }
  c.outputs = run_model(model, inputs);
  for (std::size_t j = 0; j < c.outputs.size(); ++j) model.outputs[j] = value_info_of(node.outputs[j], c.outputs[j]);
  return c;
}

}  // namespace onnxq
