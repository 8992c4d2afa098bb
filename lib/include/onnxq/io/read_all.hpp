// Reading a stream that cannot be mapped or read by offset (a pipe, a terminal, standard input)
// to its end.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace onnxq {

// Everything `fd` yields until end of file. Throws Error(Io) "cannot read NAME: <reason>".
std::vector<std::byte> read_all(int fd, const std::string& name);

}  // namespace onnxq
