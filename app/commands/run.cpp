// onnxq run: run an ONNX model on .npy/.pb inputs and write its outputs.
// Runs in onnxq-onnx (app/onnx/run.cpp); see app/onnx_commands.hpp.
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "onnx_commands.hpp"

namespace onnxq::cli {
namespace {

void add_run_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run an ONNX model on .npy/.pb inputs and write its outputs");
  names_path(cmd->add_option("model", opts->model,
                             "The model (.onnx): nodes of onnxq's operators; external data inside its folder"))
      ->required()
      ->check(CLI::ExistingFile);
  repeatable_value(
      names_path(cmd->add_option("-i,--input", opts->inputs,
                                 "NAME=FILE.npy or NAME=FILE.pb for a graph input (a bare FILE takes the next input); "
                                 "one per use, repeatable; none for a graph without inputs")));
  repeatable_value(cmd->add_option("--output", opts->outputs,
                                   "Write only this graph output (default: all); one per use, repeatable"));
  names_path(
      cmd->add_option("-o,--output-dir", opts->output_dir,
                      "Folder for the outputs, one file per graph output named after it (default: .); '-' writes the "
                      "only output to stdout"));
  cmd->add_flag("--pb", opts->pb, "Write outputs as serialized TensorProto (.pb) instead of .npy");
  cmd->add_flag("--typed-fields", opts->typed_fields, "With --pb: store elements in the typed fields, not raw_data");
  cmd->footer(
      "Outputs are written one at a time; one that a single node makes from an external initializer streams from "
      "its file a chunk at a time, as dequant does, in bounded memory; any other is computed whole. "
      "Initializers stored as external data are read from files inside the model's folder only.");
  cmd->callback([opts] { run_run(*opts); });
}

const CommandRegistration run_registration{"run", 62, &add_run_command};

}  // namespace
}  // namespace onnxq::cli
