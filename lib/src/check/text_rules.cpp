// Text that is legal in GGUF but dangerous to print or to render: terminal controls, invalid
// UTF-8, and chat templates that reach Python internals (CVE-2024-34359: llama-cpp-python rendered
// a GGUF's template with an unsandboxed Jinja environment).
#include <cctype>
#include <cstdio>

#include "report.hpp"

namespace onnxq::check_detail {
namespace {

std::string hex_byte(unsigned c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", c);
  return buf;
}

bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

std::optional<TextIssue> find_control(std::string_view s, bool allow_layout) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == 0x1B) return TextIssue{i, "ESC (the start of a terminal escape sequence)"};
    if (c < 0x20 && !(allow_layout && (c == '\t' || c == '\n' || c == '\r')))
      return TextIssue{i, "control character " + hex_byte(c)};
    if (c == 0x7F) return TextIssue{i, "control character 0x7f"};
    // C1 controls U+0080..U+009F (U+009B is a one-character CSI on some terminals).
    if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(s[i + 1]) <= 0x9F)
      return TextIssue{i, "C1 control character U+00" + hex_byte(static_cast<unsigned char>(s[i + 1])).substr(2)};
    // Bidirectional overrides and isolates (U+202A..U+202E, U+2066..U+2069) reorder what is shown.
    if (c == 0xE2 && i + 2 < s.size()) {
      const auto b1 = static_cast<unsigned char>(s[i + 1]), b2 = static_cast<unsigned char>(s[i + 2]);
      if ((b1 == 0x80 && b2 >= 0xAA && b2 <= 0xAE) || (b1 == 0x81 && b2 >= 0xA6 && b2 <= 0xA9))
        return TextIssue{i, "bidirectional control character"};
    }
  }
  return std::nullopt;
}

std::optional<TextIssue> find_invalid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    int n = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xE ? 2 : (c >> 3) == 0x1E ? 3 : -1;
    if (n < 0 || c == 0xC0 || c == 0xC1 || c > 0xF4) return TextIssue{i, "invalid UTF-8 byte " + hex_byte(c), true};
    std::uint32_t cp = n == 0 ? c : c & (0x3F >> n);
    for (int k = 1; k <= n; ++k) {
      if (i + k >= s.size()) return TextIssue{i, "truncated UTF-8 sequence", true};
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xC0) != 0x80) return TextIssue{i, "invalid UTF-8 sequence", true};
      cp = (cp << 6) | (b & 0x3F);
    }
    const bool overlong = (n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000);
    if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return TextIssue{i, "invalid UTF-8 sequence", true};
    i += n + 1;
  }
  return std::nullopt;
}

std::vector<std::string> template_internals(std::string_view text, std::size_t& first_at) {
  std::vector<std::string> found;
  first_at = std::string_view::npos;
  auto note = [&](std::string what, std::size_t at) {
    if (at < first_at) first_at = at;
    for (const auto& f : found)
      if (f == what) return;
    found.push_back(std::move(what));
  };
  // Dunder names: the way from any Jinja object to its class, globals, builtins and modules.
  for (std::size_t i = 0; i + 4 < text.size(); ++i) {
    if (text[i] != '_' || text[i + 1] != '_' || (i > 0 && is_word(text[i - 1]))) continue;
    std::size_t j = i + 2;
    while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
    const std::string_view word = text.substr(i, j - i);
    if (word.size() > 4 && word.ends_with("__") && word.find_first_not_of('_') != std::string_view::npos) {
      // The global objects of Jinja's default namespace, reached through attribute access.
      std::size_t k = i;
      while (k > 0 && (text[k - 1] == ' ' || text[k - 1] == '.' || text[k - 1] == '[' || text[k - 1] == '\'' ||
                       text[k - 1] == '"'))
        --k;
      std::size_t b = k;
      while (b > 0 && is_word(text[b - 1])) --b;
      const std::string_view owner = text.substr(b, k - b);
      if (k < i && (owner == "cycler" || owner == "joiner" || owner == "namespace" || owner == "lipsum" ||
                    owner == "range" || owner == "dict"))
        note(std::string(owner) + "." + std::string(word), i);
      else
        note(std::string(word), i);
    }
    i = j;
  }
  // Calls and names that only make sense outside a sandbox.
  for (std::string_view name : {"popen", "eval", "exec", "subprocess", "system", "os"}) {
    for (std::size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
      const std::size_t end = at + name.size();
      if ((at > 0 && is_word(text[at - 1])) || (end < text.size() && is_word(text[end]))) continue;
      std::size_t k = end;
      while (k < text.size() && text[k] == ' ') ++k;
      const bool call = k < text.size() && text[k] == '(';
      const bool attribute = (at > 0 && text[at - 1] == '.') || (k < text.size() && text[k] == '.');
      if (name == "popen" || ((name == "eval" || name == "exec" || name == "system") && call) ||
          ((name == "os" || name == "subprocess") && attribute && k < text.size() && text[k] == '.'))
        note(std::string(name) + (call ? "()" : attribute ? "." : ""), at);
    }
  }
  // Escaped underscores hide dunder names from the look above ('\x5f\x5fclass\x5f\x5f').
  for (std::string_view esc : {"\\x5f", "\\x5F", "\\u005f", "\\u005F", "\\137"}) {
    const std::size_t at = text.find(esc);
    if (at != std::string_view::npos) note("escaped underscore " + std::string(esc), at);
  }
  return found;
}

}  // namespace onnxq::check_detail
