// The model and tokenizer summaries (library facts) as report fields, for info (the JSON is the
// library's: onnxq/model/model_info.hpp).
#pragma once

#include "onnxq/model/model_summary.hpp"
#include "onnxq/model/tokenizer.hpp"
#include "report.hpp"

namespace onnxq::cli {

FieldList model_fields(const ModelSummary& model);
FieldList tokenizer_fields(const TokenizerSummary& tokenizer, const std::string& path);

// "8", or for a per-layer array that varies "8 on 30 layers, 0 on 2".
std::string layer_values_text(const LayerValues& values);
// Shortest text that reads back to the value (a float from an f32 key prints as that float).
std::string number_text(double value);

}  // namespace onnxq::cli
