// onnxq conformance: run ONNX backend node-test folders and report PASS/FAIL/SKIP per case.
// The work; the options are defined in app/commands/conformance.cpp.

#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>

#include "conformance_report.hpp"
#include "log.hpp"
#include "onnx_commands.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/onnx/conformance.hpp"
#include "output.hpp"
#include "progress.hpp"

namespace onnxq::cli {
void run_conformance(const ConformanceCommandOptions& opts) {
  ConformanceOptions options;
  if (opts.rtol || opts.atol) {
    const Tolerance tol{opts.rtol.value_or(0), opts.atol.value_or(0)};
    if (!(tol.rtol >= 0) || !(tol.atol >= 0) || std::isinf(tol.rtol) || std::isinf(tol.atol))
      invalid_argument("--rtol and --atol must be finite and >= 0");
    options.tolerance = tol;
  }
  // Find everything first, so a bad PATH stops the run before any case is reported.
  const std::vector<std::string> cases = find_case_folders(opts.paths);
  const bool json_stdout = opts.json || opts.json_out == "-";
  const std::string json_file = opts.json_out == "-" ? "" : opts.json_out;
  const bool text_report = !json_stdout;
  const bool json_report = json_stdout || !json_file.empty();
  ConformanceTotals totals;
  std::vector<CaseResult> results;  // for the JSON report
  std::vector<std::string> selected;
  for (const std::string& folder : cases)
    if (opts.filter.empty() || case_name_matches(std::filesystem::path(folder).filename().string(), opts.filter))
      selected.push_back(folder);
  Progress progress("conformance", selected.size(), Progress::Unit::Items, "cases");  // stderr, on a terminal only
  for (const std::string& folder : selected) {
    const CaseResult result = run_conformance_case(folder, options);
    totals.add(result.status);
    progress.clear_line();
    if (text_report) std::cout << format_case_line(result) << std::endl;
    progress.add(1);
    if (json_report) results.push_back(result);
  }
  progress.finish();
  if (totals.total() == 0) log::warn("--filter '{}' matched no case", opts.filter);
  if (text_report) std::cout << conformance_totals_text(totals) << std::endl;

  if (json_report) {
    const std::string text = conformance_report_json(totals, options.tolerance, results, report_text);
    auto write_report = [&](const std::string& target) {
      OutputSink sink = OutputSink::open(target, /*allow_terminal=*/true);
      sink.write(text.data(), text.size());
      sink.commit();
    };
    if (json_stdout) write_report("-");
    if (!json_file.empty()) write_report(json_file);
  }
  if (totals.failed > 0)
    invalid_input(std::to_string(totals.failed) + " of " + std::to_string(totals.total()) +
                  " conformance cases failed");
}

}  // namespace onnxq::cli
