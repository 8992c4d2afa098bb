// onnxq make-case: write an ONNX backend node-test folder (model.onnx, test_data_set_0/input_K.pb,
// output_K.pb) for one operator, with the outputs computed by onnxq.
// Runs in onnxq-onnx (app/onnx/make_case.cpp); see app/onnx_commands.hpp.
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "onnx_commands.hpp"

namespace onnxq::cli {
namespace {

void add_make_case_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<MakeCaseOptions>();
  CLI::App* cmd = app.add_subcommand(
      "make-case",
      "Write an ONNX backend node-test folder for one operator (or a real GGUF tensor), outputs computed by onnxq");
  cmd->add_option("--op", opts->op, "Operator: DequantizePacked, Unpack, OneHot or Unsqueeze (or --from-gguf)");
  repeatable_value(cmd->add_option(
      "--attr", opts->attrs, "Attribute NAME=VALUE; lists as 2,32 (e.g. --attr format=gguf:q4_0 --attr shape=2,32)"));
  repeatable_value(names_path(cmd->add_option("-i,--input", opts->inputs,
                                              "Input tensors (.npy, or .pb TensorProto) in the operator's input order; "
                                              "one per use, repeatable")));
  names_path(cmd->add_option("-o,--output-dir", opts->output_dir, "The case folder to write"))->required();
  cmd->add_option("--opset", opts->opset,
                  "Opset to import (default: 29 for Unpack/DequantizePacked, 9 for OneHot, 23 for Unsqueeze)");
  cmd->add_option("--ir-version", opts->ir_version,
                  "IR version to declare (default: from the opset; 10 from opset 21)");
  cmd->add_option("--name", opts->name, "Graph name (default: the folder's name)");
  cmd->add_flag("--typed-fields", opts->typed_fields,
                "Store .pb elements in the typed fields (int32_data ...) instead of raw_data");
  names_path(cmd->add_option("--from-gguf", opts->from_gguf,
                             "A GGUF model (any shard of a split one): cut a DequantizePacked case from its tensor"));
  cmd->add_option("--tensor", opts->tensor, "With --from-gguf: the tensor to cut the case from");
  cmd->add_option("--rows", opts->rows, "With --from-gguf: only the first N rows (shape [N, ne0])")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--all-formats", opts->all_formats,
                "With --from-gguf: one case per block format in the model (its first tensor), in "
                "OUTPUT_DIR/dequantize_packed_<format>");
  cmd->add_option("--dtype", opts->dtype, "With --from-gguf: output_dtype f32 (default), f16, bf16 or f64")
      ->check(CLI::IsMember({"f32", "f16", "bf16", "f64"}));
  cmd->footer(
      "With --from-gguf MODEL.gguf, the case is DequantizePacked on a real tensor's packed bytes "
      "(input_0.pb) and onnxq's decode of them (output_0.pb).");
  cmd->callback([opts] { run_make_case(*opts); });
}

const CommandRegistration make_case_registration{"make-case", 64, &add_make_case_command};

}  // namespace
}  // namespace onnxq::cli
