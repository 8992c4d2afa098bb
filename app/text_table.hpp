// Aligned text tables for output that a person reads.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace onnxq::cli {

class TextTable {
 public:
  enum class Align { Left, Right };
  explicit TextTable(std::vector<std::string> header, std::vector<Align> align = {});
  void add_row(std::vector<std::string> row);
  void print(std::ostream& out) const;

 private:
  std::vector<std::string> header_;
  std::vector<Align> align_;
  std::vector<std::vector<std::string>> rows_;
};

// Columns a text takes: its UTF-8 code points, not its bytes.
std::size_t display_width(std::string_view text);

// Escapes control characters (\n, \t, \r, else \xNN) so any string prints on one line, and
// backslashes too (\\) so the escapes can be told from the text. Backslash::Keep leaves
// backslashes alone, for text that may already hold escapes (a quoted value in a message).
enum class Backslash { Escape, Keep };
std::string escape_for_terminal(std::string_view text, Backslash backslash = Backslash::Escape);

}  // namespace onnxq::cli
