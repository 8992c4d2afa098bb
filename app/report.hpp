// What a command prints, built once and rendered as text for a terminal or as GitHub markdown:
// lists of "label: value" fields and tables whose cells know where their text came from, so that
// file text is escaped for the terminal in one and set as a code span in the other. JSON is
// written from the same facts struct by each command.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "text_table.hpp"

namespace onnxq::cli {

enum class OutputFormat { Text, Markdown, Json };
// Throws CLI::ValidationError (a usage error) for both at once.
OutputFormat output_format(bool json, bool markdown);

struct Cell {
  enum class Kind {
    Plain,     // text onnxq wrote: a number, a label
    FileText,  // text read from the file (a name, a string value): escaped before it is shown
    Code,      // text already made printable (gguf_value_text): shown as is, a code span in markdown
  };
  std::string text;
  Kind kind = Kind::Plain;
};
inline Cell plain(std::string text) { return {std::move(text), Cell::Kind::Plain}; }
inline Cell file_text(std::string_view text) { return {std::string(text), Cell::Kind::FileText}; }
inline Cell code(std::string text) { return {std::move(text), Cell::Kind::Code}; }

struct Table {
  std::vector<std::string> header;
  std::vector<TextTable::Align> align;  // per column; missing ones are Left
  std::vector<std::vector<Cell>> rows;
  void add(std::vector<Cell> row) { rows.push_back(std::move(row)); }
};

// "label: value" lines, values aligned (text); a two-column table (markdown).
struct FieldList {
  std::vector<std::pair<std::string, Cell>> fields;
  void add(std::string label, Cell value) { fields.emplace_back(std::move(label), std::move(value)); }
  bool empty() const { return fields.empty(); }
};

// Text: the title on its own line (level 1 prints nothing: the fields say which file). Markdown:
// '#' x level and the title.
void print_heading(std::ostream& out, OutputFormat format, int level, std::string_view title);
// Text: the fields indented by `indent` spaces. Markdown: a | Property | Value | table.
void print_fields(std::ostream& out, OutputFormat format, const FieldList& fields, int indent = 0);
void print_table(std::ostream& out, OutputFormat format, const Table& table);
// A paragraph (text) or a markdown paragraph with `|` left as is; then a blank line in markdown.
void print_paragraph(std::ostream& out, OutputFormat format, std::string_view text);

// A markdown code span that holds `text` (any backticks inside it, `|` escaped for table cells).
std::string markdown_code(std::string_view text);
// Text onnxq wrote, made safe in a markdown table cell.
std::string markdown_plain(std::string_view text);

// "12.34 MiB": bytes in binary units with two decimals ("512 B" below 1 KiB).
std::string byte_units(std::uint64_t bytes);

}  // namespace onnxq::cli
