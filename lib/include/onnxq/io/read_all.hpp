// Reading a stream that cannot be mapped or read by offset (a pipe, a terminal, standard input)
// to its end, and a small file whole.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace onnxq {

// Everything `fd` yields until end of file. Throws Error(Io) "cannot read NAME: <reason>".
std::vector<std::byte> read_all(int fd, const std::string& name);

// Everything the file at `path` holds, as text (a chat template). Throws Error(Io) "cannot open
// PATH: <reason>" or "cannot read PATH: <reason>" (a folder: "Is a directory").
std::string read_text_file(const std::string& path);

}  // namespace onnxq
