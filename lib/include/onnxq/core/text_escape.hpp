// Text from a file made safe to show on one line: nothing in it can act on a terminal or span lines.
#pragma once

#include <string>
#include <string_view>

namespace onnxq {

// Printable ASCII as it is, a backslash as \\, every other byte (controls, escape sequences, any
// byte of 0x80 or more) as \xNN: for names whose exact bytes matter (check's findings, a key the
// writer refuses).
std::string escape_bytes(std::string_view text);

// Control characters as \n, \t, \r or \xNN (DEL too), UTF-8 kept, and backslashes doubled so that
// the escapes can be told from the text; `keep_backslashes` leaves them alone, for text that may
// already hold escapes (a quoted value in a message).
std::string escape_controls(std::string_view text, bool keep_backslashes = false);

}  // namespace onnxq
