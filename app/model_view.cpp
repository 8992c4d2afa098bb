#include "model_view.hpp"

namespace onnxq::cli {
namespace {

FieldList fields(const std::vector<SummaryLine>& lines) {
  FieldList f;
  for (const SummaryLine& line : lines) {
    switch (line.kind) {
      case SummaryLine::Kind::Plain: f.add(line.label, plain(line.text)); break;
      case SummaryLine::Kind::FromFile: f.add(line.label, file_text(line.text)); break;
      case SummaryLine::Kind::Code: f.add(line.label, code(line.text)); break;
    }
  }
  return f;
}

}  // namespace

FieldList model_fields(const ModelSummary& m) { return fields(model_summary_lines(m)); }

FieldList tokenizer_fields(const TokenizerSummary& t, const std::string& path) {
  return fields(tokenizer_summary_lines(t, path));
}

}  // namespace onnxq::cli
