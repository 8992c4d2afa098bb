// The metadata changes `onnxq edit` (and the Python module's edit) asks for, parsed from their
// text form and applied to owned metadata, each applied change listed for --dry-run.
#pragma once

#include <string>
#include <vector>

#include "onnxq/gguf/metadata.hpp"

namespace onnxq::cli {

struct MetadataEdits {
  std::vector<std::string> remove;          // keys or shell globs
  std::vector<std::string> rename;          // OLD=NEW
  std::vector<std::string> set;             // KEY=VALUE, KEY=TYPE:VALUE for a new key
  std::vector<std::string> set_json;        // KEY=JSON, KEY=TYPE:JSON
  std::vector<std::string> special_tokens;  // bos|eos|pad|unk|sep|cls|mask=TEXT or =#ID
  bool chat_template_given = false;
  std::string chat_template;
};

// One change made, in the order made.
struct MetadataChange {
  enum Kind { Add, Set, Remove, Rename } kind;
  std::string key;
  std::string detail;  // Set: "OLD -> NEW"; Add: "TYPE VALUE"; Rename: the new name; Remove: the old value
};

// Applies the edits in a fixed order: removals, renames, --set, --set-json, the chat template,
// special tokens. Throws Error(InvalidArgument) naming the option and what was expected (a key a
// pattern does not match, a value its type cannot hold, a token absent from the vocabulary).
std::vector<MetadataChange> apply_edits(GgufMetadata& metadata, const MetadataEdits& edits);

// "TYPE VALUE" of an owned value, strings quoted and cut to `width` characters.
std::string describe_value(const GgufOwnedValue& value, std::size_t width = 60);

}  // namespace onnxq::cli
