// onnxq conformance: run ONNX backend node-test folders and report PASS/FAIL/SKIP per case.
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <set>

#include "command.hpp"
#include "common_options.hpp"
#include "conformance_report.hpp"
#include "onnxq/conformance.hpp"
#include "onnxq/error.hpp"
#include "output.hpp"
#include "progress.hpp"

namespace onnxq::cli {
namespace {

struct ConformanceCommandOptions {
  std::vector<std::string> paths;
  std::string filter;
  std::optional<double> rtol;
  std::optional<double> atol;
  std::string json_path;  // "" = none, "-" = stdout instead of the text report
};

void run_conformance(const ConformanceCommandOptions& opts) {
  ConformanceOptions options;
  if (opts.rtol || opts.atol) {
    const Tolerance tol{opts.rtol.value_or(0), opts.atol.value_or(0)};
    if (!(tol.rtol >= 0) || !(tol.atol >= 0) || std::isinf(tol.rtol) || std::isinf(tol.atol))
      invalid_argument("--rtol and --atol must be finite and >= 0");
    options.tolerance = tol;
  }
  // Find everything first, so a bad PATH stops the run before any case is reported.
  std::vector<std::string> cases;
  std::set<std::filesystem::path> seen;  // overlapping PATHs run each case once
  for (const std::string& path : opts.paths) {
    std::vector<std::string> found = find_case_folders(path);
    if (found.empty()) invalid_input("no test cases (folders with model.onnx) under " + path);
    for (auto& folder : found) {
      std::error_code ec;
      auto canonical = std::filesystem::weakly_canonical(folder, ec);
      if (seen.insert(ec ? std::filesystem::path(folder) : canonical).second) cases.push_back(std::move(folder));
    }
  }
  const bool text_report = opts.json_path != "-";
  ConformanceTotals totals;
  nlohmann::ordered_json json_cases = nlohmann::ordered_json::array();
  std::size_t selected = 0;
  for (const std::string& folder : cases)
    selected += opts.filter.empty() || case_name_matches(std::filesystem::path(folder).filename().string(), opts.filter);
  Progress progress("conformance", selected, Progress::Unit::Items, "cases");  // stderr, on a terminal only
  for (const std::string& folder : cases) {
    std::string name = std::filesystem::path(folder).filename().string();
    if (!opts.filter.empty() && !case_name_matches(name, opts.filter)) continue;
    const CaseResult result = run_conformance_case(folder, options);
    totals.add(result.status);
    progress.clear_line();
    if (text_report) std::cout << format_case_line(result) << std::endl;
    progress.add(1);
    if (!opts.json_path.empty()) json_cases.push_back(case_json(result));
  }
  progress.finish();
  if (totals.total() == 0) spdlog::warn("--filter '{}' matched no case", opts.filter);
  if (text_report) std::cout << format_totals(totals) << std::endl;

  if (!opts.json_path.empty()) {
    const std::string text = format_json_report(totals, options.tolerance, json_cases);
    OutputSink sink = OutputSink::open(opts.json_path, /*allow_terminal=*/true);
    sink.write(text.data(), text.size());
    sink.commit();
  }
  if (totals.failed > 0)
    invalid_input(std::to_string(totals.failed) + " of " + std::to_string(totals.total()) + " conformance cases failed");
}

void add_conformance_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<ConformanceCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "conformance", "Run ONNX backend node-test folders (model.onnx + test_data_set_*/input_K.pb, output_K.pb)");
  names_path(cmd->add_option("paths", opts->paths, "Case folders, or folders searched recursively for case folders"))
      ->required();
  add_filter_option(*cmd, opts->filter, FilterOf::Cases);
  cmd->add_option("--rtol", opts->rtol, "Relative float tolerance: |got-expected| <= atol + rtol*|expected| (default: bit-exact)");
  cmd->add_option("--atol", opts->atol, "Absolute float tolerance (see --rtol)");
  names_path(cmd->add_option("--json", opts->json_path, "Also write a JSON report to FILE; '-' prints only the JSON on stdout"))
      ->type_name("FILE|-");
  cmd->footer(
      "Prints one line per case (PASS name / FAIL name: reason / SKIP name: reason), then\n"
      "'N passed, N failed, N skipped'. Exit status 0 only when no case failed.");
  cmd->callback([opts] { run_conformance(*opts); });
}

const CommandRegistration registration{"conformance", 60, &add_conformance_command};

}  // namespace
}  // namespace onnxq::cli
