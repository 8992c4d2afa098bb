// Findings as text lines and as JSON, for every front end.
#include "gguf/json_text.hpp"
#include "onnxq/check/check.hpp"
#include "onnxq/core/text_escape.hpp"

namespace onnxq {
namespace {

const char* severity_name(Severity s) { return s == Severity::Error ? "error" : "warning"; }

}  // namespace

FindingCounts count_findings(std::span<const Finding> findings) {
  FindingCounts counts;
  for (const Finding& f : findings) (f.severity == Severity::Error ? counts.errors : counts.warnings) += 1;
  return counts;
}

std::string finding_line(const Finding& f) {
  std::string where;
  if (f.offset) where += " at offset " + std::to_string(*f.offset);
  if (!f.key.empty() || (f.code.find("key") != std::string::npos && f.tensor.empty()))
    where += ", key '" + escape_bytes(f.key) + "'";
  if (!f.tensor.empty()) where += ", tensor '" + escape_bytes(f.tensor) + "'";
  return escape_bytes(f.file) + ": " + severity_name(f.severity) + " [" + f.code + "]" + where + ": " + f.message;
}

std::string findings_json(std::string_view path, std::span<const Finding> findings) {
  using json_detail::Json;
  Json list = Json::array();
  for (const Finding& f : findings) {
    Json j = {{"severity", severity_name(f.severity)}, {"code", f.code}, {"file", f.file}};
    j["offset"] = json_detail::optional_json(f.offset);
    j["key"] = f.key.empty() ? Json(nullptr) : Json(escape_bytes(f.key));
    j["tensor"] = f.tensor.empty() ? Json(nullptr) : Json(escape_bytes(f.tensor));
    j["message"] = f.message;
    list.push_back(std::move(j));
  }
  const FindingCounts counts = count_findings(findings);
  return json_detail::json_text(
      {{"file", path}, {"errors", counts.errors}, {"warnings", counts.warnings}, {"findings", list}});
}

}  // namespace onnxq
