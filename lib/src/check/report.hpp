// Internal: the findings of one check run, and the checks of text content that its rules share.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnxq/check/check.hpp"

namespace onnxq::check_detail {

class Report {
 public:
  explicit Report(std::string file) : file_(std::move(file)) {}
  Finding& add(Severity s, std::string code, std::optional<std::uint64_t> offset, std::string message) {
    findings_.push_back({s, std::move(code), file_, offset, {}, {}, std::move(message)});
    return findings_.back();
  }
  Finding& error(std::string code, std::optional<std::uint64_t> offset, std::string message) {
    return add(Severity::Error, std::move(code), offset, std::move(message));
  }
  Finding& warning(std::string code, std::optional<std::uint64_t> offset, std::string message) {
    return add(Severity::Warning, std::move(code), offset, std::move(message));
  }
  std::vector<Finding>& findings() { return findings_; }

 private:
  std::string file_;
  std::vector<Finding> findings_;
};

// What makes a string risky to print: the first such byte and what it is.
struct TextIssue {
  std::size_t at;     // byte index in the string
  std::string what;   // "ESC (escape sequence)", "control character 0x07", ...
  bool utf8 = false;  // invalid UTF-8 rather than a control character
};
// Controls that a terminal acts on. `allow_layout` lets \t, \n and \r pass (values such as chat
// templates hold line breaks); keys and tensor names allow none.
std::optional<TextIssue> find_control(std::string_view s, bool allow_layout);
std::optional<TextIssue> find_invalid_utf8(std::string_view s);

// Constructs of a Jinja chat template that reach Python internals, each named once, in order
// of first appearance (empty: none).
std::vector<std::string> template_internals(std::string_view text, std::size_t& first_at);

}  // namespace onnxq::check_detail
