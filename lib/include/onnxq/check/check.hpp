// `onnxq check`: every problem of a GGUF file, not only the first. The GGUF reader's own parser,
// recording every problem instead of stopping at the first, reports what the reader rejects; rules
// on top of it report what ggml's reader rejects (strict tensor-data layout, nested arrays, long
// strings, tensor names equal up to a NUL byte), what the GGUF specification forbids (keys that are
// not ASCII or longer than 65535 bytes) as errors, and content that is legal but risky or
// suspicious as warnings. It keeps going after a problem whenever the records that follow can
// still be found.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace onnxq {

enum class Severity { Error, Warning };

struct Finding {
  Severity severity;
  std::string code;                     // stable and short, e.g. "duplicate-key"
  std::string file;                     // the file (shard) it is in
  std::optional<std::uint64_t> offset;  // byte offset of the record or field
  std::string key;                      // the metadata key it concerns (raw bytes; may be empty)
  std::string tensor;                   // the tensor it concerns (raw bytes; may be empty)
  std::string message;                  // names no raw file text: key and tensor are separate
};

// Checks one file's bytes; `name` is used as Finding::file.
std::vector<Finding> check_gguf_bytes(std::span<const std::byte> bytes, const std::string& name);

// Checks a file; for a `<name>-0000K-of-0000N.gguf` shard, every shard of the set and the
// split.* keys across them. Throws Error(Io) only when `path` itself cannot be read.
std::vector<Finding> check_gguf_file(const std::string& path);

// How many findings are errors and how many warnings.
struct FindingCounts {
  std::size_t errors = 0, warnings = 0;
};
FindingCounts count_findings(std::span<const Finding> findings);

// One finding on one line, file text escaped (\xNN, escape_bytes): "FILE: error [CODE] at offset N,
// key 'K', tensor 'T': MESSAGE" (the key named, empty, for a key's finding that has none).
std::string finding_line(const Finding& finding);
// The findings of `path` as JSON text: {file, errors, warnings, findings: [{severity, code, file,
// offset, key, tensor, message}]}, a missing offset, key or tensor null, key and tensor escaped.
std::string findings_json(std::string_view path, std::span<const Finding> findings);

}  // namespace onnxq
