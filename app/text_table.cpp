#include "text_table.hpp"

#include <algorithm>

#include "onnxq/core/text_escape.hpp"

namespace onnxq::cli {

std::size_t display_width(std::string_view s) {
  std::size_t w = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++w;  // continuation bytes add nothing
  return w;
}

TextTable::TextTable(std::vector<std::string> header, std::vector<Align> align)
    : header_(std::move(header)), align_(std::move(align)) {
  align_.resize(header_.size(), Align::Left);
}

void TextTable::add_row(std::vector<std::string> row) {
  row.resize(header_.size());
  rows_.push_back(std::move(row));
}

void TextTable::print(std::ostream& out) const {
  std::vector<std::size_t> width(header_.size());
  for (std::size_t c = 0; c < header_.size(); ++c) {
    width[c] = display_width(header_[c]);
    for (const auto& row : rows_) width[c] = std::max(width[c], display_width(row[c]));
  }
  auto print_row = [&](const std::vector<std::string>& row) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::size_t pad = width[c] - display_width(row[c]);
      const bool last = c + 1 == row.size();
      if (align_[c] == Align::Right) line.append(pad, ' ');
      line += row[c];
      if (align_[c] == Align::Left && !last) line.append(pad, ' ');
      if (!last) line += "  ";
    }
    out << line << '\n';
  };
  print_row(header_);
  for (const auto& row : rows_) print_row(row);
}

std::string escape_for_terminal(std::string_view text, Backslash backslash) {
  return escape_controls(text, backslash == Backslash::Keep);
}

}  // namespace onnxq::cli
