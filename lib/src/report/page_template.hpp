// The report page's template (lib/src/report/page.html), embedded by the build
// (cmake/embed_report_page.cmake writes the .cpp that defines it).
#pragma once

#include <string_view>

namespace onnxq::report_detail {

// The page, its Content-Security-Policy's script hash filled in; kDataPlaceholder marks where
// the JSON goes.
extern const std::string_view kPageTemplate;
inline constexpr std::string_view kDataPlaceholder = "{{ONNXQ_REPORT_DATA}}";

}  // namespace onnxq::report_detail
