// A metadata edit plan: the changes `onnxq edit` and the Python module's edit ask for, in their
// text form (typed values and the type a new value's text or JSON implies, key globs, the chat
// template, special tokens found in the vocabulary), applied to owned metadata, each applied
// change listed (for a dry run). The GGUF writer then refuses whatever the rule book forbids.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "onnxq/gguf/metadata.hpp"

namespace onnxq {

// How errors name each kind of edit: the CLI's options by default; another front end its own.
struct MetadataEditNames {
  std::string remove = "--remove", rename = "--rename", set = "--set", set_json = "--set-json",
              special_token = "--special-token";
};

// A value as a front end holds it before it has a GGUF type (a Python object): what JSON can say,
// plus the floats JSON cannot (NaN, infinities). It takes its type as set_json's values do.
struct MetadataLooseValue {
  enum Kind { Bool, Int, UInt, Float, String, List } kind = Int;
  bool boolean = false;
  std::int64_t integer = 0;
  std::uint64_t unsigned_integer = 0;  // UInt: past INT64_MAX
  double number = 0;
  std::string text;
  std::vector<MetadataLooseValue> list;
};

// KEY set to a loose value: in `type` when given ("u32" a scalar or the elements' type, as set_json's
// TYPE: prefix; "arr:u32" an array of u32), else in the key's own type, else the type it implies.
struct MetadataValueEdit {
  std::string key;
  std::string type;
  MetadataLooseValue value;
};

struct MetadataEdits {
  std::vector<std::string> remove;            // keys or shell globs
  std::vector<std::string> rename;            // OLD=NEW
  std::vector<std::string> set;               // KEY=VALUE, KEY=TYPE:VALUE for a new key
  std::vector<std::string> set_json;          // KEY=JSON, KEY=TYPE:JSON
  std::vector<MetadataValueEdit> set_values;  // applied with set_json, before it
  std::vector<std::string> special_tokens;    // bos|eos|pad|unk|sep|cls|mask=TEXT or =#ID
  bool chat_template_given = false;
  std::string chat_template;
  MetadataEditNames names;
};

// One change made, in the order made.
struct MetadataChange {
  enum Kind { Add, Set, Remove, Rename } kind;
  std::string key;
  std::string detail;  // Set: "OLD -> NEW"; Add: "TYPE VALUE"; Rename: the new name; Remove: the old value
};

// Applies the edits in a fixed order: removals, renames, set, set_values, set_json, the chat
// template, special tokens. Throws Error(InvalidArgument) naming the edit (by `edits.names`) and what was
// expected (a key a pattern does not match, a value its type cannot hold, a token absent from the
// vocabulary).
std::vector<MetadataChange> apply_metadata_edits(GgufMetadata& metadata, const MetadataEdits& edits);

// A change as `onnxq edit --dry-run` lists it: "add     KEY: TYPE VALUE", "set     KEY: OLD -> NEW",
// "remove  KEY (was TYPE VALUE)", "rename  OLD -> NEW".
std::string metadata_change_line(const MetadataChange& change);

// "TYPE VALUE" of an owned value, strings quoted and cut to `width` characters.
std::string describe_metadata_value(const GgufOwnedValue& value, std::size_t width = 60);

}  // namespace onnxq
