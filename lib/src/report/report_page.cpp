#include <stdexcept>
#include <string>

#include "onnxq/io/atomic_file.hpp"
#include "onnxq/report/report.hpp"
#include "report/page_template.hpp"

namespace onnxq {

std::string report_page(std::string_view json) {
  using report_detail::kDataPlaceholder;
  using report_detail::kPageTemplate;
  const std::size_t at = kPageTemplate.find(kDataPlaceholder);
  if (at == std::string_view::npos) throw std::logic_error("the report page template has no data placeholder");
  std::string page;
  page.reserve(kPageTemplate.size() + json.size() + json.size() / 16);
  page.append(kPageTemplate.substr(0, at));
  // Inside <script type="application/json"> only "</script" or "<!--" could end or bend the
  // element; with every '<' (and '>', '&', for good measure) escaped, no string of the file can.
  for (const char c : json) {
    switch (c) {
      case '<': page += "\\u003c"; break;
      case '>': page += "\\u003e"; break;
      case '&': page += "\\u0026"; break;
      default: page += c;
    }
  }
  page.append(kPageTemplate.substr(at + kDataPlaceholder.size()));
  return page;
}

void write_report(const std::string& path, const GgufModel& model, const ReportOptions& options) {
  const std::string page = report_page(report_json(model, options));
  AtomicFile out = AtomicFile::create(path);
  out.write(page.data(), page.size());
  out.commit();
}

}  // namespace onnxq
