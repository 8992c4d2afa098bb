// The model and tokenizer summaries in words, as `onnxq info` shows them: "label: text" lines, each
// marked with where its text comes from, so that a front end shows the file's text escaped (a
// terminal) or as a code span (markdown). The same facts as JSON: model_info.hpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "onnxq/model/model_summary.hpp"
#include "onnxq/model/tokenizer.hpp"

namespace onnxq {

struct SummaryLine {
  enum class Kind {
    Plain,     // onnxq's words and numbers
    FromFile,  // text read from the file (a name, a note): to be escaped before it is shown
    Code,      // text from the file already escaped (a token's text in quotes)
  };
  std::string label;
  std::string text;
  Kind kind = Kind::Plain;
};

// The fields present, in a fixed order: architecture, name, ..., "KV heads: 8 on 30 layers, 0 on
// 2", "RoPE: base 500000, scaling yarn x4 from 8192 tokens", ..., then one "note" per note.
std::vector<SummaryLine> model_summary_lines(const ModelSummary& model);
// model, pre-tokenizer, sizes, each special token ("bos: 1 \"<s>\""), flags, the chat template's
// size with the command that prints it (naming `path`), the named templates, the notes.
std::vector<SummaryLine> tokenizer_summary_lines(const TokenizerSummary& tokenizer, std::string_view path);

// "8", or for a per-layer array that varies "8 on 30 layers, 0 on 2" (more than three values:
// "per layer, 0 to 8").
std::string layer_values_text(const LayerValues& values);
// Shortest text that reads back to the value: an integer without exponent (500000, not 5e+05), a
// value that is a float as that float (0.1f as "0.1").
std::string shortest_number_text(double value);

}  // namespace onnxq
