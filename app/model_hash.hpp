// Hashes of a model's tensor data in the manifest format of llama.cpp's llama-gguf-hash:
// per tensor (its bytes as stored) and for the whole model (every tensor's bytes, concatenated in
// tensor-info order; padding between tensors is not hashed), with XXH64 (seed 0), XXH3-64,
// SHA-1, SHA-256, and a UUIDv5 of the model (SHA-1 over a fixed namespace, then the data).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "onnxq/gguf/model.hpp"

namespace onnxq::cli {

// In the order llama-gguf-hash prints them; also the order of strength used by --check is
// sha256 > sha1 > xxh64 > xxh3 > uuid.
enum class HashType { Xxh64, Xxh3, Sha1, Sha256, Uuid };
inline constexpr HashType kHashTypes[] = {HashType::Xxh64, HashType::Xxh3, HashType::Sha1, HashType::Sha256,
                                          HashType::Uuid};
std::string_view hash_type_name(HashType type);  // "xxh64", "xxh3", "sha1", "sha256", "uuid"
bool parse_hash_type(std::string_view name, HashType& type);

struct HashSelection {
  bool enabled[5] = {};
  bool& operator[](HashType t) { return enabled[static_cast<int>(t)]; }
  bool operator[](HashType t) const { return enabled[static_cast<int>(t)]; }
  bool any() const;
};

struct HashLine {
  HashType type;
  std::string hex;           // lowercase; the uuid in 8-4-4-4-12 form
  const TensorInfo* tensor;  // null for a model line
};

// Hashes the selected types in one pass over each tensor's bytes (read through
// GgufModel::tensor_bytes). Per-tensor hashes (unless `model_only`; never for uuid) run on
// `threads` threads split by tensor while one more streams the model hashes in file order.
// Lines come as llama-gguf-hash prints them: for each tensor all its types, then one model
// line per type.
std::vector<HashLine> hash_model(const GgufModel& model, const HashSelection& types, bool model_only, int threads);

}  // namespace onnxq::cli
