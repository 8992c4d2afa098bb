// The model and tokenizer summaries as report fields, for info: the library's lines
// (onnxq/model/summary_text.hpp; the JSON is model_info.hpp's).
#pragma once

#include "onnxq/model/summary_text.hpp"
#include "report.hpp"

namespace onnxq::cli {

FieldList model_fields(const ModelSummary& model);
FieldList tokenizer_fields(const TokenizerSummary& tokenizer, const std::string& path);

// Shortest text that reads back to the value (onnxq/model/summary_text.hpp).
inline std::string number_text(double value) { return shortest_number_text(value); }

}  // namespace onnxq::cli
