// onnxq make-case: write an ONNX backend node-test folder (model.onnx, test_data_set_0/input_K.pb,
// output_K.pb) for one operator, with the outputs computed by onnxq.
// The work; the options are defined in app/commands/make_case.cpp.
#include <CLI/CLI.hpp>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "log.hpp"
#include "onnx/case_folder.hpp"
#include "onnx_commands.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/onnx/node_runner.hpp"
#include "tensor_files.hpp"

namespace onnxq::cli {
namespace {

std::int64_t parse_int(const std::string& text, const std::string& what) {
  std::int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || text.empty())
    throw CLI::ValidationError("--attr", what + ": '" + text + "' is not an integer");
  return v;
}

float parse_float(const std::string& text, const std::string& what) {
  try {
    std::size_t used = 0;
    const float v = std::stof(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  throw CLI::ValidationError("--attr", what + ": '" + text + "' is not a number");
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

NodeAttribute parse_attribute(const std::string& spec, const OpSchema& schema) {
  const auto eq = spec.find('=');
  if (eq == std::string::npos) throw CLI::ValidationError("--attr", "'" + spec + "' is not NAME=VALUE");
  NodeAttribute a;
  a.name = spec.substr(0, eq);
  const std::string value = spec.substr(eq + 1);
  const OpAttributeSchema* attr = nullptr;
  std::string known;
  for (const auto& s : schema.attributes) {
    if (s.name == a.name) attr = &s;
    known += (known.empty() ? "" : ", ") + std::string(s.name);
  }
  const std::string op = std::string(schema.op_type) + "-" + std::to_string(schema.since_version);
  if (!attr)
    throw CLI::ValidationError(
        "--attr", op + " has no attribute '" + a.name + "' (it has: " + (known.empty() ? "none" : known) + ")");
  a.type = attr->type;
  const std::string what = "attribute " + a.name;
  switch (a.type) {
    case AttributeType::Int:
      // output_dtype also takes a dtype name (float16, bf16, DOUBLE ...).
      if (a.name == "output_dtype" && !value.empty() && !std::isdigit(static_cast<unsigned char>(value[0])) &&
          value[0] != '-') {
        auto dtype = parse_dtype_name(value);
        if (!dtype) throw CLI::ValidationError("--attr", what + ": unknown dtype '" + value + "'");
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
    default: throw CLI::ValidationError("--attr", what + " has a type make-case cannot write");
  }
  return a;
}

ValueInfo value_info_of(const std::string& name, const Tensor& t) {
  ValueInfo v;
  v.name = name;
  v.dtype = t.dtype();
  v.has_shape = true;
  v.dims = t.shape();
  return v;
}

std::string known_ops() {
  std::string s;
  std::string last;
  for (const OpSchema& schema : operator_registry()) {
    if (schema.op_type == last) continue;
    last = schema.op_type;
    s += (s.empty() ? "" : ", ") + last;
  }
  return s;
}

}  // namespace

void run_make_case(const MakeCaseOptions& opts) {
  if (!opts.from_gguf.empty()) return run_make_case_from_gguf(opts);
  if (opts.op.empty()) throw CLI::ValidationError("--op", "give --op (with --input), or --from-gguf");
  const auto opset = opts.opset ? opts.opset : default_opset(opts.op);
  if (!opset) throw CLI::ValidationError("--op", "unknown operator '" + opts.op + "' (onnxq has: " + known_ops() + ")");
  const OpSchema* schema = find_op_schema(opts.op, *opset);
  if (!schema) throw CLI::ValidationError("--opset", opts.op + " does not exist at opset " + std::to_string(*opset));
  if (opts.inputs.size() != schema->inputs.size()) {
    std::string names;
    for (auto n : schema->inputs) names += (names.empty() ? "" : ", ") + std::string(n);
    throw CLI::ValidationError("--input", opts.op + "-" + std::to_string(schema->since_version) + " takes " +
                                              std::to_string(schema->inputs.size()) + " inputs (" + names + "), got " +
                                              std::to_string(opts.inputs.size()));
  }

  OnnxModel model;
  model.ir_version = opts.ir_version.value_or(ir_version_for_opset(*opset));
  model.opset_imports.push_back({"", *opset});
  const std::filesystem::path dir(opts.output_dir);
  model.graph_name =
      !opts.name.empty() ? opts.name : std::filesystem::absolute(dir).lexically_normal().filename().string();
  model.nodes.emplace_back();
  OnnxNode& node = model.nodes.front();
  node.op_type = opts.op;
  for (const auto& spec : opts.attrs) {
    NodeAttribute a = parse_attribute(spec, *schema);
    if (node.find_attribute(a.name)) throw CLI::ValidationError("--attr", "attribute '" + a.name + "' is given twice");
    node.attributes.push_back(std::move(a));
  }
  std::vector<Tensor> inputs;
  for (std::size_t k = 0; k < opts.inputs.size(); ++k) {
    inputs.push_back(read_tensor_file(opts.inputs[k]));
    const std::string name(schema->inputs[k]);
    node.inputs.push_back(name);
    model.inputs.push_back(value_info_of(name, inputs.back()));
  }
  for (auto n : schema->outputs) node.outputs.emplace_back(n);
  // The outputs' types come from running the node; run_model also re-checks everything.
  for (std::size_t j = 0; j < node.outputs.size(); ++j)
    model.outputs.push_back({node.outputs[j], DType::Undefined, false, {}});
  const std::vector<Tensor> outputs = run_model(model, inputs);
  for (std::size_t j = 0; j < outputs.size(); ++j) model.outputs[j] = value_info_of(node.outputs[j], outputs[j]);

  write_case_folder(dir, model, inputs, outputs, opts.typed_fields);
  std::cout << (dir / "model.onnx").string() << ": " << opts.op << " opset " << *opset << ", ir_version "
            << model.ir_version << ", " << inputs.size() << " input(s), output "
            << dtype_info(outputs[0].dtype()).onnx_name << " " << shape_to_string(outputs[0].shape()) << '\n';
}

}  // namespace onnxq::cli
