// How `onnxq conformance` shows the library's case results to a person: one line per case. The
// totals and the JSON report are the library's (onnxq/onnx/conformance.hpp).
#pragma once

#include <string>
#include <string_view>

#include "onnxq/onnx/conformance.hpp"

namespace onnxq::cli {

// A reason or name on one report line: control characters become escapes. Backslashes stay
// as they are, since a reason may quote a value that the library already escaped.
std::string report_text(std::string_view text);

// "PASS name", "FAIL name: reason" or "SKIP name: reason", always one line.
std::string format_case_line(const CaseResult& result);

}  // namespace onnxq::cli
