// onnxq run: run a single-node ONNX model on .npy/.pb inputs and write its outputs.
// The work; the options are defined in app/commands/run.cpp.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <memory>
#include <set>

#include "onnx_commands.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/onnx/node_runner.hpp"
#include "tensor_files.hpp"

namespace onnxq::cli {
namespace {

std::string input_names(const SingleNodeModel& m) {
  std::string s;
  for (const auto& v : m.inputs) s += (s.empty() ? "" : ", ") + v.name;
  return s.empty() ? "none" : s;
}

// Graph inputs in order, each from its NAME=FILE or else from the next bare FILE.
std::vector<Tensor> bind_inputs(const SingleNodeModel& model, const std::vector<std::string>& specs) {
  std::vector<std::string> files(model.inputs.size());
  std::vector<std::string> bare;
  for (const std::string& spec : specs) {
    const auto eq = spec.find('=');
    if (eq == std::string::npos) {
      bare.push_back(spec);
      continue;
    }
    const std::string name = spec.substr(0, eq);
    std::size_t k = 0;
    while (k < model.inputs.size() && model.inputs[k].name != name) ++k;
    if (k == model.inputs.size())
      throw CLI::ValidationError("--input",
                                 "the model has no input '" + name + "' (inputs: " + input_names(model) + ")");
    if (!files[k].empty()) throw CLI::ValidationError("--input", "input '" + name + "' is given twice");
    files[k] = spec.substr(eq + 1);
  }
  std::size_t next_bare = 0;
  for (std::size_t k = 0; k < files.size(); ++k)
    if (files[k].empty() && next_bare < bare.size()) files[k] = bare[next_bare++];
  if (next_bare < bare.size())
    throw CLI::ValidationError("--input", "more inputs given than the model has (inputs: " + input_names(model) + ")");
  std::vector<Tensor> tensors;
  for (std::size_t k = 0; k < files.size(); ++k) {
    if (files[k].empty())
      throw CLI::ValidationError("--input", "no file for model input '" + model.inputs[k].name + "'; give --input " +
                                                model.inputs[k].name + "=FILE");
    tensors.push_back(read_tensor_file(files[k]));
  }
  return tensors;
}

}  // namespace

void run_run(const RunOptions& opts) {
  const SingleNodeModel model = read_single_node_model_file(opts.model);
  if (auto reason = unsupported_reason(model.node, model.node_opset()))
    fail(ErrorKind::Unsupported, opts.model + ": " + *reason);
  const std::vector<Tensor> inputs = bind_inputs(model, opts.inputs);
  const std::vector<Tensor> outputs = run_model(model, inputs);
  const std::string ext = opts.pb ? ".pb" : ".npy";
  const auto encoding = opts.typed_fields ? TensorProtoEncoding::TypedFields : TensorProtoEncoding::RawData;

  if (opts.output_dir == "-") {
    if (outputs.size() != 1) throw CLI::ValidationError("-o", "'-o -' needs a model with exactly one output");
    if (opts.pb)
      write_file_atomically("-", encode_tensor_proto(outputs[0], model.outputs[0].name, encoding));
    else
      write_npy_file("-", outputs[0]);
    return;
  }
  std::error_code ec;
  std::filesystem::create_directories(opts.output_dir, ec);
  if (ec) fail(ErrorKind::Io, "cannot create " + opts.output_dir + ": " + ec.message());
  std::set<std::string> used;
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const std::string name = model.outputs[k].name;
    std::string stem = safe_file_stem(name, "output_" + std::to_string(k));
    if (!used.insert(stem).second) stem += "_" + std::to_string(k);
    used.insert(stem);
    const std::string path = (std::filesystem::path(opts.output_dir) / (stem + ext)).string();
    if (opts.pb)
      write_tensor_proto_file(path, outputs[k], name, encoding);
    else
      write_npy_file(path, outputs[k]);
    std::cout << path << ": " << name << " " << dtype_info(outputs[k].dtype()).onnx_name << " "
              << shape_to_string(outputs[k].shape()) << '\n';
  }
}

}  // namespace onnxq::cli
