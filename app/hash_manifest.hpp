// Manifests in llama-gguf-hash's text format: one entry a line, `TYPE  HASH  NAME`, where NAME
// is `FILE:TENSOR` for a tensor and `FILE` for the whole model.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "onnxq/hash/hash_type.hpp"

namespace onnxq::cli {

class HashManifest {
 public:
  // Throws Error(Io) when the file cannot be read.
  static HashManifest read(const std::string& path);

  // The types that start at least one line (llama-gguf-hash picks the strongest of them).
  const HashSelection& types() const { return types_; }
  // The hash of the first entry with this type and name.
  std::optional<std::string> find(HashType type, const std::string& name) const;

 private:
  HashSelection types_;
  std::map<std::pair<HashType, std::string>, std::string> entries_;
};

// The strongest present type: sha256, then sha1, xxh64, xxh3, uuid (none: all false).
HashSelection strongest_type(const HashSelection& present);

}  // namespace onnxq::cli
