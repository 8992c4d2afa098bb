// onnxq conformance: run ONNX backend node-test folders and report PASS/FAIL/SKIP per case.
// The work; the options are defined in app/commands/conformance.cpp.

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <set>

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
  const bool json_stdout = opts.json || opts.json_out == "-";
  const std::string json_file = opts.json_out == "-" ? "" : opts.json_out;
  const bool text_report = !json_stdout;
  const bool json_report = json_stdout || !json_file.empty();
  ConformanceTotals totals;
  nlohmann::ordered_json json_cases = nlohmann::ordered_json::array();
  std::size_t selected = 0;
  for (const std::string& folder : cases)
    selected +=
        opts.filter.empty() || case_name_matches(std::filesystem::path(folder).filename().string(), opts.filter);
  Progress progress("conformance", selected, Progress::Unit::Items, "cases");  // stderr, on a terminal only
  for (const std::string& folder : cases) {
    std::string name = std::filesystem::path(folder).filename().string();
    if (!opts.filter.empty() && !case_name_matches(name, opts.filter)) continue;
    const CaseResult result = run_conformance_case(folder, options);
    totals.add(result.status);
    progress.clear_line();
    if (text_report) std::cout << format_case_line(result) << std::endl;
    progress.add(1);
    if (json_report) json_cases.push_back(case_json(result));
  }
  progress.finish();
  if (totals.total() == 0) log::warn("--filter '{}' matched no case", opts.filter);
  if (text_report) std::cout << format_totals(totals) << std::endl;

  if (json_report) {
    const std::string text = format_json_report(totals, options.tolerance, json_cases);
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
