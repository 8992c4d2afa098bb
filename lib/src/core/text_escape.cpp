// Escaping text for one line.
#include "onnxq/core/text_escape.hpp"

#include <cstdio>

namespace onnxq {
namespace {

void append_hex(std::string& out, unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  out += buf;
}

}  // namespace

std::string escape_bytes(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (c == '\\')
      out += "\\\\";
    else if (c >= 0x20 && c < 0x7F)
      out += static_cast<char>(c);
    else
      append_hex(out, c);
  }
  return out;
}

std::string escape_controls(std::string_view text, bool keep_backslashes) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\\': out += keep_backslashes ? "\\" : "\\\\"; break;
      default:
        if (c < 0x20 || c == 0x7F)
          append_hex(out, c);
        else
          out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace onnxq
