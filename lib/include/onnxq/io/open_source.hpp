// One way in for every file a reader opens: a local path or a remote one (http://, https://,
// hf://).
#pragma once

#include <memory>
#include <string>

#include "onnxq/io/byte_source.hpp"
#include "onnxq/io/io_options.hpp"

namespace onnxq {

// A remote path: its HTTP source (onnxq/io/remote_file.hpp). A local file: a MappedSource
// (pipes and FIFOs read into memory), or a PreadSource when options.local is LocalReads::Pread.
// Throws Error(Io) ("cannot open PATH: ...", "PATH is a directory, expected a file", ...).
std::shared_ptr<const ByteSource> open_source(const std::string& path_or_url, const IoOptions& options = {});

}  // namespace onnxq
