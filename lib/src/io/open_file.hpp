// Opening a local file for reading, with the messages every local source gives.
#pragma once

#include <sys/stat.h>

#include <string>

namespace onnxq::detail {

struct OpenedFile {
  int fd;  // the caller closes it
  struct stat st;
};

// Opens `path` read-only. Throws Error(Io) "cannot open PATH: ...", "cannot stat PATH: ..." or
// "PATH is a directory, expected a file".
OpenedFile open_for_reading(const std::string& path);

}  // namespace onnxq::detail
