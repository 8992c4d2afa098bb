// Manifests in llama-gguf-hash's text format: one entry a line, `TYPE  HASH  NAME`, where NAME
// is `FILE:TENSOR` for a tensor and `FILE` for the whole model; and the verification of a model's
// hashes against one (`onnxq hash --check`, `onnxq.hash(..., check=)`).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "onnxq/hash/hash_type.hpp"
#include "onnxq/hash/model_hash.hpp"

namespace onnxq {

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

// The types to hash when checking `manifest` (read from `path`): `requested` when it names any,
// else the manifest's strongest. Throws Error(InvalidInput) naming `path` when no line of it starts
// with a known type.
HashSelection manifest_check_types(const HashManifest& manifest, const std::string& path, HashSelection requested);

// FILE:TENSOR for a tensor's row, FILE for the model's; FILE exactly as the caller names the model.
std::string manifest_entry_name(const std::string& file, const HashRow& row);

enum class ManifestVerdict { Ok, Mismatch, NotFound };
ManifestVerdict manifest_verdict(const HashManifest& manifest, const std::string& file, const HashRow& row);

}  // namespace onnxq
