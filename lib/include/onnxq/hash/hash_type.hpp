// The hash types of llama.cpp's llama-gguf-hash manifests: XXH64 (seed 0), XXH3-64, SHA-1,
// SHA-256, and a UUIDv5 of the model (SHA-1 over a fixed namespace, then the data).
#pragma once

#include <string_view>

namespace onnxq {

// In the order llama-gguf-hash prints them; also the order of strength used by `hash --check`:
// sha256 > sha1 > xxh64 > xxh3 > uuid.
enum class HashType { Xxh64, Xxh3, Sha1, Sha256, Uuid };
inline constexpr HashType kHashTypes[] = {HashType::Xxh64, HashType::Xxh3, HashType::Sha1, HashType::Sha256,
                                          HashType::Uuid};
std::string_view hash_type_name(HashType type);  // "xxh64", "xxh3", "sha1", "sha256", "uuid"
// False when `name` is none of hash_type_name's names.
bool parse_hash_type(std::string_view name, HashType& type);

// A set of hash types, indexed by type.
struct HashSelection {
  bool enabled[5] = {};
  bool& operator[](HashType t) { return enabled[static_cast<int>(t)]; }
  bool operator[](HashType t) const { return enabled[static_cast<int>(t)]; }
  bool any() const;
};

}  // namespace onnxq
