// Escaping text for one line: escape_bytes shows every byte but printable ASCII as \xNN;
// escape_controls only the controls, keeping UTF-8.
#include "onnxq/core/text_escape.hpp"

#include <gtest/gtest.h>

namespace onnxq {
namespace {

TEST(TextEscape, EscapeBytesShowsAllButPrintableAscii) {
  EXPECT_EQ(escape_bytes("plain ~text!"), "plain ~text!");
  EXPECT_EQ(escape_bytes("a\\b"), "a\\\\b");
  EXPECT_EQ(escape_bytes(std::string("\0\x1f\x7f\x80\xff\n", 6)), "\\x00\\x1f\\x7f\\x80\\xff\\x0a");
  EXPECT_EQ(escape_bytes("caf\xc3\xa9"), "caf\\xc3\\xa9");
  EXPECT_EQ(escape_bytes(""), "");
}

TEST(TextEscape, EscapeControlsKeepsUtf8) {
  EXPECT_EQ(escape_controls("l1\nl2\tx\ry"), "l1\\nl2\\tx\\ry");
  EXPECT_EQ(escape_controls(std::string("\0\x1b[31m\x7f", 7)), "\\x00\\x1b[31m\\x7f");
  EXPECT_EQ(escape_controls("caf\xc3\xa9 \xe2\x96\x81"), "caf\xc3\xa9 \xe2\x96\x81");
  EXPECT_EQ(escape_controls("a\\nb"), "a\\\\nb");
  EXPECT_EQ(escape_controls("a\\nb\n", /*keep_backslashes=*/true), "a\\nb\\n");
}

}  // namespace
}  // namespace onnxq
