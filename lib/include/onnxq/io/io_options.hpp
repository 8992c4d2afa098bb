// How files are read, passed to whatever opens them (onnxq/io/open_source.hpp, GgufModel::open):
// nothing about reading is process-global.
#pragma once

#include <string_view>

namespace onnxq {

struct RemoteOptions {
  double timeout_seconds = 30;  // to connect, and the longest a transfer may stall
  int max_attempts = 4;         // per request; only 5xx answers and broken transfers are retried
  int retry_delay_ms = 250;     // before the first retry; doubles for each further one
};

// How a local file's bytes are reached.
enum class LocalReads {
  Map,    // a memory map (MappedSource); pipes and FIFOs are read into memory
  Pread,  // pread(2) (PreadSource); regular files only
};

struct IoOptions {
  RemoteOptions remote;
  LocalReads local = LocalReads::Map;

  // The defaults, with $ONNXQ_TIMEOUT (seconds) as remote.timeout_seconds when it is set and not
  // empty. Throws Error(InvalidArgument) "ONNXQ_TIMEOUT must be a positive number of seconds,
  // got 'TEXT'".
  static IoOptions from_environment();
};

// The environment variable from_environment() reads.
inline constexpr std::string_view kTimeoutVariable = "ONNXQ_TIMEOUT";

}  // namespace onnxq
