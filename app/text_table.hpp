// Aligned text tables for output that a person reads.
#pragma once

#include <ostream>
#include <string>
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

// Escapes control characters and backslashes so any string prints on one line.
std::string escape_for_terminal(std::string_view text);

}  // namespace onnxq::cli
