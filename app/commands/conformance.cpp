// onnxq conformance: run ONNX backend node-test folders and report PASS/FAIL/SKIP per case.
// Runs in onnxq-onnx (app/onnx/conformance.cpp); see app/onnx_commands.hpp.
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "onnx_commands.hpp"

namespace onnxq::cli {
namespace {

void add_conformance_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<ConformanceCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "conformance", "Run ONNX backend node-test folders (model.onnx + test_data_set_*/input_K.pb, output_K.pb)");
  names_path(cmd->add_option("paths", opts->paths, "Case folders, or folders searched recursively for case folders"))
      ->required();
  add_filter_option(*cmd, opts->filter, FilterOf::Cases);
  cmd->add_option("--rtol", opts->rtol,
                  "Relative float tolerance: |got-expected| <= atol + rtol*|expected| (default: bit-exact)");
  cmd->add_option("--atol", opts->atol, "Absolute float tolerance (see --rtol)");
  add_json_flag(*cmd, opts->json, "the report --json-out writes, instead of the text lines");
  names_path(cmd->add_option("--json-out", opts->json_out, "Also write the JSON report to FILE ('-': as --json)"))
      ->type_name("FILE|-");
  cmd->footer(
      "Prints one line per case (PASS name / FAIL name: reason / SKIP name: reason), then\n"
      "'N passed, N failed, N skipped'; --json prints the same report as JSON instead.\n"
      "Exit status 0 only when no case failed.");
  cmd->callback([opts] { run_conformance(*opts); });
}

const CommandRegistration conformance_registration{"conformance", 60, &add_conformance_command};

}  // namespace
}  // namespace onnxq::cli
