// onnxq make-case: write an ONNX backend node-test folder (model.onnx, test_data_set_0/input_K.pb,
// output_K.pb) for one operator, with the outputs computed by onnxq.
// The work; the options are defined in app/commands/make_case.cpp.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "log.hpp"
#include "onnx/case_folder.hpp"
#include "onnx_commands.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/onnx/node_case.hpp"
#include "tensor_files.hpp"

namespace onnxq::cli {

void run_make_case(const MakeCaseOptions& opts) {
  if (!opts.from_gguf.empty()) return run_make_case_from_gguf(opts);
  if (opts.op.empty()) throw CLI::ValidationError("--op", "give --op (with --input), or --from-gguf");
  const auto opset = opts.opset ? opts.opset : default_opset(opts.op);
  if (!opset)
    throw CLI::ValidationError("--op", "unknown operator '" + opts.op + "' (onnxq has: " + operator_names() + ")");
  const OpSchema* schema = find_op_schema(opts.op, *opset);
  if (!schema) throw CLI::ValidationError("--opset", opts.op + " does not exist at opset " + std::to_string(*opset));
  if (opts.inputs.size() != schema->inputs.size()) {
    std::string names;
    for (auto n : schema->inputs) names += (names.empty() ? "" : ", ") + std::string(n);
    throw CLI::ValidationError("--input", opts.op + "-" + std::to_string(schema->since_version) + " takes " +
                                              std::to_string(schema->inputs.size()) + " inputs (" + names + "), got " +
                                              std::to_string(opts.inputs.size()));
  }

  std::vector<NodeAttribute> attributes;
  for (const auto& spec : opts.attrs) {
    try {
      attributes.push_back(parse_node_attribute(spec, *schema));
    } catch (const Error& e) {
      throw CLI::ValidationError("--attr", e.what());  // a malformed option: a usage error
    }
    for (std::size_t i = 0; i + 1 < attributes.size(); ++i)
      if (attributes[i].name == attributes.back().name)
        throw CLI::ValidationError("--attr", "attribute '" + attributes.back().name + "' is given twice");
  }
  std::vector<Tensor> inputs;
  for (const std::string& path : opts.inputs) inputs.push_back(read_tensor_file(path));
  const std::filesystem::path dir(opts.output_dir);
  const NodeCase c = make_node_case(
      *schema, *opset, opts.ir_version.value_or(ir_version_for_opset(*opset)),
      !opts.name.empty() ? opts.name : std::filesystem::absolute(dir).lexically_normal().filename().string(),
      std::move(attributes), inputs);
  const OnnxModel& model = c.model;
  const std::vector<Tensor>& outputs = c.outputs;
  write_case_folder(dir, model, inputs, outputs, opts.typed_fields);
  std::cout << (dir / "model.onnx").string() << ": " << opts.op << " opset " << *opset << ", ir_version "
            << model.ir_version << ", " << inputs.size() << " input(s), output "
            << dtype_info(outputs[0].dtype()).onnx_name << " " << shape_to_string(outputs[0].shape()) << '\n';
}

}  // namespace onnxq::cli
