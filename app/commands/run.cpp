// onnxq run: run a single-node ONNX model on .npy/.pb inputs and write its outputs.
// Runs in onnxq-onnx (app/onnx/run.cpp); see app/onnx_commands.hpp.
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "onnx_commands.hpp"

namespace onnxq::cli {
namespace {

void add_run_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run a single-node ONNX model on .npy/.pb inputs and write its outputs");
  names_path(cmd->add_option("model", opts->model, "The model (.onnx) with exactly one node"))
      ->required()
      ->check(CLI::ExistingFile);
  repeatable_value(
      names_path(cmd->add_option("-i,--input", opts->inputs,
                                 "NAME=FILE.npy or NAME=FILE.pb for a graph input (a bare FILE takes the next input); "
                                 "one per use, repeatable")))
      ->required();
  names_path(
      cmd->add_option("-o,--output-dir", opts->output_dir,
                      "Folder for the outputs, one file per graph output named after it (default: .); '-' writes the "
                      "only output to stdout"));
  cmd->add_flag("--pb", opts->pb, "Write outputs as serialized TensorProto (.pb) instead of .npy");
  cmd->add_flag("--typed-fields", opts->typed_fields, "With --pb: store elements in the typed fields, not raw_data");
  cmd->callback([opts] { run_run(*opts); });
}

const CommandRegistration run_registration{"run", 62, &add_run_command};

}  // namespace
}  // namespace onnxq::cli
