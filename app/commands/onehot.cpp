// onnxq onehot: OneHot-9 (or OneHot-11 with --opset 11) on a .npy of indices.
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/core/value_text.hpp"
#include "onnxq/ops/onehot.hpp"
#include "tensor_input.hpp"
#include "tensor_output.hpp"

namespace onnxq::cli {
namespace {

struct OneHotOptions {
  std::string input;
  std::string output;
  std::int64_t depth = 0;
  std::vector<std::string> values = {"0", "1"};
  std::string dtype = "f32";
  std::int64_t axis = -1;
  int opset = 9;
};

void run_onehot(const OneHotOptions& opts) {
  const auto dtype = parse_dtype_name(opts.dtype);
  if (!dtype) throw CLI::ValidationError("--dtype", "unknown dtype '" + opts.dtype + "'");
  if (opts.values.size() != 2) {
    std::string given;
    for (const std::string& v : opts.values) given += (given.empty() ? "" : ",") + v;
    throw CLI::ValidationError("--values", "expected OFF,ON (two values), got '" + given + "'");
  }
  Tensor values;
  try {
    values = tensor_from_text(*dtype, opts.values);
  } catch (const Error& e) {
    throw CLI::ValidationError("--values", e.what());  // a malformed option: a usage error
  }
  const Tensor indices = read_npy_input(opts.input);
  const Tensor depth = Tensor::from_bytes(DType::Int64, {}, std::as_bytes(std::span(&opts.depth, 1)));
  const OneHotVersion version = opts.opset >= 11 ? OneHotVersion::V11 : OneHotVersion::V9;
  write_npy_output(onehot(indices, depth, values, opts.axis, version), opts.output);
}

void add_onehot_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<OneHotOptions>();
  CLI::App* cmd = app.add_subcommand("onehot", "OneHot-9: one-hot rows for a .npy of indices");
  add_input_argument(cmd, opts->input, "Indices .npy (any numeric dtype; floats truncate toward zero)");
  cmd->add_option("--depth", opts->depth, "Size of the one-hot axis (positive)")->required();
  comma_list(cmd->add_option("--values", opts->values, "OFF,ON values (repeatable: --values 0 --values 1)"))
      ->capture_default_str();
  cmd->add_option("--dtype", opts->dtype, "Output dtype: bool, u8..u64, i8..i64, f16, bf16, f32, f64, str")
      ->capture_default_str();
  cmd->add_option("--axis", opts->axis, "Where the one-hot axis goes, in [-(r+1), r]")->capture_default_str();
  cmd->add_option("--opset", opts->opset,
                  "ONNX opset of the semantics: 9 or 10 (negative indices all off), 11+ (they count from the back)")
      ->capture_default_str()
      ->check(CLI::Range(9, 1000));
  add_npy_output_option(cmd, opts->output);
  cmd->callback([opts] { run_onehot(*opts); });
}

const CommandRegistration onehot_registration{"onehot", 71, &add_onehot_command};

}  // namespace
}  // namespace onnxq::cli
