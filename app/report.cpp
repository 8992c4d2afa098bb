#include "report.hpp"

#include <CLI/Error.hpp>  // the errors only: all of CLI11 costs a file ~6 s to compile

#include <algorithm>

#include "onnxq/core/value_text.hpp"

namespace onnxq::cli {
namespace {

std::string text_of(const Cell& cell) {
  return cell.kind == Cell::Kind::FileText ? escape_for_terminal(cell.text) : cell.text;
}

std::string markdown_of(const Cell& cell) {
  switch (cell.kind) {
    case Cell::Kind::Plain: return markdown_plain(cell.text);
    case Cell::Kind::FileText: return cell.text.empty() ? std::string() : markdown_code(escape_for_terminal(cell.text));
    case Cell::Kind::Code: return markdown_code(cell.text);
  }
  return cell.text;
}

}  // namespace

OutputFormat output_format(bool json, bool markdown) {
  if (json && markdown) throw CLI::ValidationError("--markdown", "cannot be combined with --json");
  return json ? OutputFormat::Json : markdown ? OutputFormat::Markdown : OutputFormat::Text;
}

std::string markdown_code(std::string_view text) {
  std::size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  std::string body;
  for (char c : text) {
    if (c == '|') body += '\\';
    body += c;
  }
  // A span that starts or ends with a backtick (or a space) needs a space inside each fence.
  const bool pad = !body.empty() && (body.front() == '`' || body.back() == '`' || body.front() == ' ');
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

std::string markdown_plain(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|' || c == '\\' || c == '`' || c == '<') out += '\\';
    out += c;
  }
  return out;
}

void print_heading(std::ostream& out, OutputFormat format, int level, std::string_view title) {
  if (format == OutputFormat::Markdown) {
    out << std::string(static_cast<std::size_t>(level), '#') << ' ' << markdown_plain(escape_for_terminal(title))
        << "\n\n";
  } else if (level > 1) {
    out << title << '\n';
  }
}

void print_fields(std::ostream& out, OutputFormat format, const FieldList& list, int indent) {
  if (format == OutputFormat::Markdown) {
    Table t{{"Property", "Value"}, {}, {}};
    for (const auto& [label, value] : list.fields) t.add({plain(label), value});
    print_table(out, format, t);
    return;
  }
  std::size_t width = 0;
  for (const auto& field : list.fields) width = std::max(width, display_width(field.first));
  for (const auto& [label, value] : list.fields)
    out << std::string(static_cast<std::size_t>(indent), ' ') << label << ':'
        << std::string(width - display_width(label) + 1, ' ') << text_of(value) << '\n';
}

void print_table(std::ostream& out, OutputFormat format, const Table& table) {
  const std::size_t columns = table.header.size();
  auto align_of = [&](std::size_t c) { return c < table.align.size() ? table.align[c] : TextTable::Align::Left; };
  if (format != OutputFormat::Markdown) {
    std::vector<TextTable::Align> align;
    for (std::size_t c = 0; c < columns; ++c) align.push_back(align_of(c));
    TextTable t(table.header, align);
    for (const auto& row : table.rows) {
      std::vector<std::string> cells;
      for (const Cell& cell : row) cells.push_back(text_of(cell));
      t.add_row(std::move(cells));
    }
    t.print(out);
    return;
  }
  out << '|';
  for (const std::string& h : table.header) out << ' ' << markdown_plain(h) << " |";
  out << "\n|";
  for (std::size_t c = 0; c < columns; ++c) out << (align_of(c) == TextTable::Align::Right ? " ---: |" : " --- |");
  out << '\n';
  for (const auto& row : table.rows) {
    out << '|';
    for (std::size_t c = 0; c < columns; ++c)
      out << ' ' << (c < row.size() ? markdown_of(row[c]) : std::string()) << " |";
    out << '\n';
  }
  out << '\n';
}

void print_paragraph(std::ostream& out, OutputFormat format, std::string_view text) {
  out << text << '\n';
  if (format == OutputFormat::Markdown) out << '\n';
}

std::string byte_units(std::uint64_t bytes) { return binary_units_text(static_cast<double>(bytes), 2, 5); }

}  // namespace onnxq::cli
