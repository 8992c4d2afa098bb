#include "onnxq/hash/hash_type.hpp"

#include <algorithm>
#include <iterator>

namespace onnxq {

std::string_view hash_type_name(HashType type) {
  switch (type) {
    case HashType::Xxh64: return "xxh64";
    case HashType::Xxh3: return "xxh3";
    case HashType::Sha1: return "sha1";
    case HashType::Sha256: return "sha256";
    case HashType::Uuid: return "uuid";
  }
  return "?";
}

bool parse_hash_type(std::string_view name, HashType& type) {
  for (HashType t : kHashTypes)
    if (hash_type_name(t) == name) {
      type = t;
      return true;
    }
  return false;
}

bool HashSelection::any() const {
  return std::any_of(std::begin(enabled), std::end(enabled), [](bool b) { return b; });
}

}  // namespace onnxq
