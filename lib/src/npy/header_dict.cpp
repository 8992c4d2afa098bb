#include "npy/header_dict.hpp"

#include <string>

#include "onnxq/core/error.hpp"

namespace onnxq::npy_detail {
namespace {

class DictParser {
 public:
  DictParser(std::string_view text, std::string_view source) : s_(text), source_(source) {}

  HeaderDict parse() {
    HeaderDict dict;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    skip_space();
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      const std::string key = string_literal();
      skip_space();
      expect(':');
      skip_space();
      if (key == "descr") {
        once(seen_descr, key);
        if (peek() == '[') fail(ErrorKind::Unsupported, "structured dtypes (a descr list) are not supported");
        dict.descr = string_literal();
      } else if (key == "fortran_order") {
        once(seen_order, key);
        dict.fortran_order = boolean();
      } else if (key == "shape") {
        once(seen_shape, key);
        dict.shape = tuple();
      } else {
        fail(ErrorKind::InvalidInput, "unexpected key '" + key + "'");
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != '}') fail(ErrorKind::InvalidInput, "expected ',' or '}'");
    }
    ++pos_;
    // numpy pads with spaces and ends the header with a newline; nothing else may follow.
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r')) ++pos_;
    if (pos_ != s_.size()) fail(ErrorKind::InvalidInput, "unexpected text after the dict");
    if (!seen_descr || !seen_order || !seen_shape)
      fail(ErrorKind::InvalidInput, "the dict needs the keys 'descr', 'fortran_order' and 'shape'");
    return dict;
  }

 private:
  [[noreturn]] void fail(ErrorKind kind, const std::string& what) const {
    onnxq::fail(kind, std::string(source_) + ": .npy header, offset " + std::to_string(pos_) + ": " + what);
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  void expect(char c) {
    if (peek() != c) fail(ErrorKind::InvalidInput, std::string("expected '") + c + "'");
    ++pos_;
  }
  void once(bool& seen, const std::string& key) {
    if (seen) fail(ErrorKind::InvalidInput, "key '" + key + "' appears twice");
    seen = true;
  }

  std::string string_literal() {
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail(ErrorKind::InvalidInput, "expected a quoted string");
    ++pos_;
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != quote) {
      // Escapes never occur in what numpy writes for the keys and simple descrs we accept.
      if (s_[pos_] == '\\' || s_[pos_] == '\n') fail(ErrorKind::InvalidInput, "unsupported character in a string");
      out += s_[pos_++];
    }
    if (pos_ >= s_.size()) fail(ErrorKind::InvalidInput, "unterminated string");
    ++pos_;
    return out;
  }

  bool boolean() {
    if (s_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (s_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    fail(ErrorKind::InvalidInput, "expected True or False");
  }

  std::int64_t integer() {
    if (peek() < '0' || peek() > '9') fail(ErrorKind::InvalidInput, "expected a non-negative integer");
    std::uint64_t v = 0;
    while (peek() >= '0' && peek() <= '9') {
      v = v * 10 + static_cast<std::uint64_t>(peek() - '0');
      if (v > static_cast<std::uint64_t>(INT64_MAX)) fail(ErrorKind::InvalidInput, "dimension exceeds 2^63-1");
      ++pos_;
    }
    return static_cast<std::int64_t>(v);
  }

  // "()", "(3,)", "(3, 4)", "(3, 4,)"; "(3)" is an int in Python, not a tuple.
  std::vector<std::int64_t> tuple() {
    expect('(');
    std::vector<std::int64_t> dims;
    skip_space();
    if (peek() == ')') {
      ++pos_;
      return dims;
    }
    while (true) {
      skip_space();
      dims.push_back(integer());
      skip_space();
      if (peek() == ',') {
        ++pos_;
        skip_space();
        if (peek() == ')') break;
        continue;
      }
      if (peek() == ')' && dims.size() > 1) break;
      fail(ErrorKind::InvalidInput, dims.size() == 1 && peek() == ')' ? "a one-dimensional shape needs a trailing comma"
                                                                      : "expected ',' or ')' in the shape");
    }
    ++pos_;
    return dims;
  }

  std::string_view s_;
  std::string_view source_;
  std::size_t pos_ = 0;
};

}  // namespace

HeaderDict parse_header_dict(std::string_view text, std::string_view source) {
  return DictParser(text, source).parse();
}

}  // namespace onnxq::npy_detail
