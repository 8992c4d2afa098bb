#include "onnxq/hash/manifest.hpp"

#include <cctype>
#include <fstream>

#include "onnxq/core/error.hpp"

namespace onnxq {
namespace {

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// The next whitespace-separated word of `line` from `at`.
std::string_view next_word(std::string_view line, std::size_t& at) {
  while (at < line.size() && is_space(line[at])) ++at;
  const std::size_t begin = at;
  while (at < line.size() && !is_space(line[at])) ++at;
  return line.substr(begin, at - begin);
}

// NAME is the rest of the line, so names with spaces survive; a verification suffix
// (`  -  Ok`, as --check prints) is dropped, so a saved check report reads as a manifest.
std::string entry_name(std::string_view rest) {
  while (!rest.empty() && is_space(rest.front())) rest.remove_prefix(1);
  while (!rest.empty() && is_space(rest.back())) rest.remove_suffix(1);
  for (std::string_view suffix : {"  -  Ok", "  -  Mismatch", "  -  Not Found"})
    if (rest.ends_with(suffix)) rest.remove_suffix(suffix.size());
  return std::string(rest);
}

}  // namespace

HashManifest HashManifest::read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(ErrorKind::Io, "cannot open manifest " + path);
  HashManifest manifest;
  std::string line;
  while (std::getline(in, line)) {
    std::size_t at = 0;
    HashType type;
    if (!parse_hash_type(next_word(line, at), type)) continue;
    manifest.types_[type] = true;
    const std::string hash(next_word(line, at));
    std::string name = entry_name(std::string_view(line).substr(at));
    if (hash.empty() || name.empty()) continue;
    manifest.entries_.try_emplace({type, std::move(name)}, hash);
  }
  if (in.bad()) fail(ErrorKind::Io, "cannot read manifest " + path);
  return manifest;
}

std::optional<std::string> HashManifest::find(HashType type, const std::string& name) const {
  auto it = entries_.find({type, name});
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

HashSelection strongest_type(const HashSelection& present) {
  HashSelection pick;
  for (HashType t : {HashType::Sha256, HashType::Sha1, HashType::Xxh64, HashType::Xxh3, HashType::Uuid})
    if (present[t]) {
      pick[t] = true;
      break;
    }
  return pick;
}

HashSelection manifest_check_types(const HashManifest& manifest, const std::string& path, HashSelection requested) {
  if (!manifest.types().any())
    invalid_input(path + ": no line starts with a known hash type (xxh64, xxh3, sha1, sha256, uuid)");
  return requested.any() ? requested : strongest_type(manifest.types());
}

std::string manifest_entry_name(const std::string& file, const HashRow& row) {
  return row.tensor ? file + ":" + std::string(row.tensor->name) : file;
}

ManifestVerdict manifest_verdict(const HashManifest& manifest, const std::string& file, const HashRow& row) {
  const auto expected = manifest.find(row.type, manifest_entry_name(file, row));
  return !expected ? ManifestVerdict::NotFound : *expected == row.hex ? ManifestVerdict::Ok : ManifestVerdict::Mismatch;
}

}  // namespace onnxq
