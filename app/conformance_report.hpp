// How `onnxq conformance` reports the library's case results: the text lines a person reads
// and the JSON report for scripts. The library only returns CaseResult data.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnxq/onnx/conformance.hpp"

namespace onnxq::cli {

std::string_view case_status_name(CaseStatus status);  // "PASS", "FAIL", "SKIP"

// A reason or name on one report line: control characters become escapes. Backslashes stay
// as they are, since a reason may quote a value that the library already escaped.
std::string report_text(std::string_view text);

// "PASS name", "FAIL name: reason" or "SKIP name: reason", always one line.
std::string format_case_line(const CaseResult& result);

struct ConformanceTotals {
  std::uint64_t passed = 0, failed = 0, skipped = 0;
  void add(CaseStatus status);
  std::uint64_t total() const { return passed + failed + skipped; }
};
// Exactly "N passed, N failed, N skipped".
std::string format_totals(const ConformanceTotals& totals);

// One case in the JSON report; reasons are one line, as in the text report.
nlohmann::ordered_json case_json(const CaseResult& result);

// The whole JSON report as text (2-space indent, newline at the end). Names and reasons come
// from the files and need not be UTF-8: bad bytes are replaced, never an exception.
std::string format_json_report(const ConformanceTotals& totals, const std::optional<Tolerance>& tolerance,
                               const nlohmann::ordered_json& cases);

}  // namespace onnxq::cli
