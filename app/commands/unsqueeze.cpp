// onnxq unsqueeze: Unsqueeze-23 on a .npy; the data are written back unchanged under the new shape.
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "onnxq/ops/unsqueeze.hpp"
#include "tensor_input.hpp"
#include "tensor_output.hpp"

namespace onnxq::cli {
namespace {

struct UnsqueezeOptions {
  std::string input;
  std::string output;
  std::vector<std::int64_t> axes;
};

void add_unsqueeze_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<UnsqueezeOptions>();
  CLI::App* cmd = app.add_subcommand("unsqueeze", "Unsqueeze-23: insert size-1 dimensions into a .npy");
  add_input_argument(cmd, opts->input, "Input .npy of any dtype");
  comma_list(cmd->add_option("--axes", opts->axes,
                             "Output dimensions to insert, e.g. 0,-1 (each in [-out_rank, out_rank-1]; repeatable: "
                             "the uses add up)"))
      ->required();
  add_npy_output_option(cmd, opts->output);
  cmd->callback([opts] {
    write_npy_output(unsqueeze(read_npy_input(opts->input), opts->axes, UnsqueezeVersion::V13), opts->output);
  });
}

const CommandRegistration unsqueeze_registration{"unsqueeze", 72, &add_unsqueeze_command};

}  // namespace
}  // namespace onnxq::cli
