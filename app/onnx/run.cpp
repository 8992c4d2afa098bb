// onnxq run: run an ONNX model on .npy/.pb inputs and write its outputs, one at a time.
// The work; the options are defined in app/commands/run.cpp.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <utility>

#include "decoded_stream.hpp"
#include "onnx_commands.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/io/tensor_file_names.hpp"
#include "onnxq/onnx/node_runner.hpp"
#include "tensor_files.hpp"
#include "tensor_output.hpp"

namespace onnxq::cli {
namespace {

std::string input_names(const OnnxModel& m) {
  std::string s;
  for (const auto& v : m.inputs) s += (s.empty() ? "" : ", ") + v.name;
  return s.empty() ? "none" : s;
}

// Graph inputs in order, each from its NAME=FILE or else from the next bare FILE.
std::vector<Tensor> bind_inputs(const OnnxModel& model, const std::vector<std::string>& specs) {
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

// The graph outputs to write: all, or those --output names, in the order given.
std::vector<const ValueInfo*> chosen_outputs(const OnnxModel& model, const std::vector<std::string>& names) {
  std::vector<const ValueInfo*> out;
  if (names.empty()) {
    for (const auto& v : model.outputs) out.push_back(&v);
    return out;
  }
  for (const std::string& name : names) {
    const ValueInfo* found = nullptr;
    for (const auto& v : model.outputs)
      if (v.name == name) found = &v;
    if (!found) throw CLI::ValidationError("--output", "the model has no output '" + name + "'");
    if (std::find(out.begin(), out.end(), found) != out.end())
      throw CLI::ValidationError("--output", "output '" + name + "' is given twice");
    out.push_back(found);
  }
  return out;
}

// One output written to `path` ("-": stdout): a node over an external initializer streams from the
// file through the library's decoder, a chunk at a time, into the .npy, as `dequant` does
// (GraphRun::streamable); any other output is computed whole. Returns its dtype and shape.
std::pair<DType, Shape> write_output(const GraphRun& run, const std::string& name, const std::string& path,
                                     const RunOptions& opts, StreamBuffers& buffers) {
  if (auto stream = opts.pb ? std::nullopt : run.streamable(name)) {
    OutputSink sink = OutputSink::open(path);
    write_decoded(sink, DecodedStream{stream->source.get(), stream->shape, stream->dtype, true, 0, nullptr, &buffers});
    sink.commit();
    return {stream->dtype, stream->shape};
  }
  const Tensor out = run.compute(name);
  if (opts.pb)
    write_tensor_proto_file(path, out, name,
                            opts.typed_fields ? TensorProtoEncoding::TypedFields : TensorProtoEncoding::RawData);
  else
    write_npy_file(path, out);
  return {out.dtype(), out.shape()};
}

}  // namespace

void run_run(const RunOptions& opts) {
  const OnnxModel model = read_onnx_model_file(opts.model);
  for (const OnnxNode& node : model.nodes)
    if (auto reason = unsupported_reason(node, model.opset_for(node)))
      fail(ErrorKind::Unsupported, opts.model + ": " + *reason);
  const std::vector<const ValueInfo*> wanted = chosen_outputs(model, opts.outputs);
  const std::vector<Tensor> inputs = bind_inputs(model, opts.inputs);
  const GraphRun run(model, inputs, opts.model);
  StreamBuffers buffers;  // one set for all the outputs: their pages are faulted in once
  if (opts.output_dir == "-") {
    if (wanted.size() != 1)
      throw CLI::ValidationError("-o", "'-o -' needs exactly one output (the model has " +
                                           std::to_string(wanted.size()) + "; choose one with --output)");
    write_output(run, wanted[0]->name, "-", opts, buffers);
    return;
  }
  std::error_code ec;
  std::filesystem::create_directories(opts.output_dir, ec);
  if (ec) fail(ErrorKind::Io, "cannot create " + opts.output_dir + ": " + ec.message());
  std::vector<std::string> names;
  for (const ValueInfo* v : wanted) names.push_back(v->name);
  const std::vector<std::string> stems = output_file_stems(names);
  // One output at a time: streamed or computed, written, released before the next (bounded memory).
  for (std::size_t k = 0; k < wanted.size(); ++k) {
    const std::string path =
        (std::filesystem::path(opts.output_dir) / (stems[k] + (opts.pb ? ".pb" : ".npy"))).string();
    const auto [dtype, shape] = write_output(run, names[k], path, opts, buffers);
    std::cout << path << ": " << names[k] << " " << dtype_info(dtype).onnx_name << " " << shape_to_string(shape)
              << '\n';
  }
}

}  // namespace onnxq::cli
