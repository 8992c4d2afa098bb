// A conformance run's totals and JSON report: one schema for every front end.
#include <nlohmann/json.hpp>

#include "onnxq/onnx/conformance.hpp"

namespace onnxq {

std::string_view case_status_name(CaseStatus status) {
  switch (status) {
    case CaseStatus::Pass: return "PASS";
    case CaseStatus::Fail: return "FAIL";
    case CaseStatus::Skip: return "SKIP";
  }
  return "?";
}

void ConformanceTotals::add(CaseStatus status) {
  if (status == CaseStatus::Pass)
    ++passed;
  else if (status == CaseStatus::Fail)
    ++failed;
  else
    ++skipped;
}

std::string conformance_totals_text(const ConformanceTotals& t) {
  return std::to_string(t.passed) + " passed, " + std::to_string(t.failed) + " failed, " + std::to_string(t.skipped) +
         " skipped";
}

std::string conformance_report_json(const ConformanceTotals& totals, const std::optional<Tolerance>& tolerance,
                                    const std::vector<CaseResult>& cases,
                                    const std::function<std::string(std::string_view)>& one_line) {
  using Json = nlohmann::ordered_json;
  Json case_list = Json::array();
  for (const CaseResult& r : cases) {
    Json data_sets = Json::array();
    for (const auto& ds : r.data_sets)
      data_sets.push_back(
          {{"name", ds.name}, {"status", case_status_name(ds.status)}, {"reason", one_line(ds.reason)}});
    case_list.push_back({{"name", r.name},
                         {"path", r.path},
                         {"status", case_status_name(r.status)},
                         {"reason", one_line(r.reason)},
                         {"op_type", r.op_type},
                         {"domain", r.domain},
                         {"opset", r.opset},
                         {"seconds", r.seconds},
                         {"data_sets", data_sets}});
  }
  const Json report = {
      {"passed", totals.passed},
      {"failed", totals.failed},
      {"skipped", totals.skipped},
      {"tolerance", tolerance ? Json{{"rtol", tolerance->rtol}, {"atol", tolerance->atol}} : Json(nullptr)},
      {"cases", case_list}};
  return report.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace onnxq
