#include "conformance_report.hpp"

#include "text_table.hpp"

namespace onnxq::cli {

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

}  // namespace onnxq::cli
