#include "conformance_report.hpp"

#include "text_table.hpp"

namespace onnxq::cli {

std::string_view case_status_name(CaseStatus status) {
  switch (status) {
    case CaseStatus::Pass: return "PASS";
    case CaseStatus::Fail: return "FAIL";
    case CaseStatus::Skip: return "SKIP";
  }
  return "?";
}

std::string report_text(std::string_view text) { return escape_for_terminal(text, Backslash::Keep); }

std::string format_case_line(const CaseResult& r) {
  std::string line(case_status_name(r.status));
  line += ' ';
  line += report_text(r.name);
  if (r.status != CaseStatus::Pass) {
    line += ": ";
    line += report_text(r.reason);
  }
  return line;
}

void ConformanceTotals::add(CaseStatus status) {
  if (status == CaseStatus::Pass)
    ++passed;
  else if (status == CaseStatus::Fail)
    ++failed;
  else
    ++skipped;
}

std::string format_totals(const ConformanceTotals& t) {
  return std::to_string(t.passed) + " passed, " + std::to_string(t.failed) + " failed, " + std::to_string(t.skipped) +
         " skipped";
}

nlohmann::ordered_json case_json(const CaseResult& r) {
  nlohmann::ordered_json data_sets = nlohmann::ordered_json::array();
  for (const auto& ds : r.data_sets)
    data_sets.push_back(
        {{"name", ds.name}, {"status", case_status_name(ds.status)}, {"reason", report_text(ds.reason)}});
  return {{"name", r.name},
          {"path", r.path},
          {"status", case_status_name(r.status)},
          {"reason", report_text(r.reason)},
          {"op_type", r.op_type},
          {"domain", r.domain},
          {"opset", r.opset},
          {"seconds", r.seconds},
          {"data_sets", data_sets}};
}

std::string format_json_report(const ConformanceTotals& totals, const std::optional<Tolerance>& tolerance,
                               const nlohmann::ordered_json& cases) {
  const nlohmann::ordered_json report = {
      {"passed", totals.passed},
      {"failed", totals.failed},
      {"skipped", totals.skipped},
      {"tolerance", tolerance ? nlohmann::ordered_json{{"rtol", tolerance->rtol}, {"atol", tolerance->atol}}
                              : nlohmann::ordered_json(nullptr)},
      {"cases", cases}};
  return report.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace onnxq::cli
