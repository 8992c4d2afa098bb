// The metadata edit plan: parsing the edits' text and JSON into typed values, and applying them.
#include "onnxq/gguf/metadata_edit.hpp"

#include <fnmatch.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

#include "onnxq/core/error.hpp"

namespace onnxq {
namespace metadata_edit_detail {
namespace {

using EditJson = nlohmann::json;

struct KeyValueText {
  std::string key;
  std::string value;
};

KeyValueText split_assignment(const std::string& option, const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) invalid_argument(option + " " + text + ": expected KEY=VALUE");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

// "TYPE:REST" when TYPE is a value type's name.
std::optional<std::pair<GgufType, std::string>> typed(const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) return std::nullopt;
  const auto type = gguf_type_named(std::string_view(text).substr(0, colon));
  if (!type) return std::nullopt;
  return std::make_pair(*type, text.substr(colon + 1));
}

const char* kTypeList = "u8, i8, u16, i16, u32, i32, u64, i64, f32, f64, bool, str";

// The value of an integer type from its numeric value, range checked.
std::optional<GgufOwnedValue> integer_value(GgufType type, std::int64_t v, bool negative_ok, std::uint64_t u) {
  const std::uint64_t bits = gguf_scalar_size(type) * 8;
  if (gguf_type_is_signed(type)) {
    if (!negative_ok && u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
    const std::int64_t s = negative_ok ? v : static_cast<std::int64_t>(u);
    const std::int64_t lo = bits == 64 ? std::numeric_limits<std::int64_t>::min() : -(std::int64_t{1} << (bits - 1));
    const std::int64_t hi = bits == 64 ? std::numeric_limits<std::int64_t>::max() : (std::int64_t{1} << (bits - 1)) - 1;
    if (s < lo || s > hi) return std::nullopt;
    const std::uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    return GgufOwnedValue::scalar(type, static_cast<std::uint64_t>(s) & mask);
  }
  if (negative_ok) return std::nullopt;
  if (bits < 64 && u >> bits) return std::nullopt;
  return GgufOwnedValue::scalar(type, u);
}

GgufOwnedValue scalar_from_text(const std::string& where, GgufType type, const std::string& text) {
  auto bad = [&]() -> GgufOwnedValue {
    invalid_argument(where + ": '" + text + "' is not a " + std::string(gguf_type_name(type)));
  };
  const char* first = text.data();
  const char* last = text.data() + text.size();
  switch (type) {
    case GgufType::String: return GgufOwnedValue::string(text);
    case GgufType::Bool:
      if (text == "true" || text == "1") return GgufOwnedValue::boolean(true);
      if (text == "false" || text == "0") return GgufOwnedValue::boolean(false);
      return bad();
    case GgufType::Float32: {
      float f;
      auto [p, ec] = std::from_chars(first, last, f);
      if (ec != std::errc() || p != last || text.empty()) return bad();
      return GgufOwnedValue::f32(f);
    }
    case GgufType::Float64: {
      double d;
      auto [p, ec] = std::from_chars(first, last, d);
      if (ec != std::errc() || p != last || text.empty()) return bad();
      return GgufOwnedValue::f64(d);
    }
    case GgufType::Array: invalid_argument(where + ": an array is set with --set-json");
    default: break;
  }
  std::optional<GgufOwnedValue> v;
  if (!text.empty() && text[0] == '-') {
    std::int64_t s;
    auto [p, ec] = std::from_chars(first, last, s);
    if (ec == std::errc() && p == last) v = integer_value(type, s, true, 0);
  } else {
    std::uint64_t u;
    auto [p, ec] = std::from_chars(first, last, u);
    if (ec == std::errc() && p == last) v = integer_value(type, 0, false, u);
  }
  if (!v) return bad();
  return *v;
}

GgufOwnedValue from_json(const std::string& where, const EditJson& j, std::optional<GgufType> type,
                         std::optional<GgufType> element_hint);

// The element type of a JSON array with no type given: its elements' common kind.
GgufType infer_type(const std::string& where, const EditJson& j) {
  if (j.is_string()) return GgufType::String;
  if (j.is_boolean()) return GgufType::Bool;
  if (j.is_number_float()) return GgufType::Float32;
  if (j.is_number_unsigned() && j.get<std::uint64_t>() > std::numeric_limits<std::int64_t>::max())
    return GgufType::UInt64;
  if (j.is_number_integer()) {
    const auto v = j.get<std::int64_t>();
    return v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max()
               ? GgufType::Int32
               : GgufType::Int64;
  }
  if (j.is_array()) return GgufType::Array;
  invalid_argument(where + ": " + j.dump() + " has no GGUF type (null and objects have none)");
}

GgufOwnedValue from_json(const std::string& where, const EditJson& j, std::optional<GgufType> type,
                         std::optional<GgufType> element_hint) {
  const GgufType t = type ? *type : infer_type(where, j);
  if (t == GgufType::Array) {
    if (!j.is_array()) invalid_argument(where + ": expected an array, got " + j.dump());
    std::optional<GgufType> et = element_hint;
    if (!et) {
      // Integers and floats mixed make floats; otherwise every element must be of one kind.
      for (const EditJson& e : j) {
        const GgufType k = infer_type(where, e);
        if (!et || (gguf_type_is_integer(*et) && k == GgufType::Float32))
          et = k;
        else if (*et == GgufType::Int32 && k == GgufType::Int64)
          et = k;
        else if (*et != k && !(*et == GgufType::Float32 && gguf_type_is_integer(k)) &&
                 !(*et == GgufType::Int64 && k == GgufType::Int32))
          invalid_argument(where + ": the array mixes " + std::string(gguf_type_name(*et)) + " and " +
                           std::string(gguf_type_name(k)) + " elements; give a type, e.g. KEY=f32:[...]");
      }
      if (!et) invalid_argument(where + ": an empty array needs a type, e.g. KEY=u32:[]");
    }
    std::vector<GgufOwnedValue> elements;
    for (const EditJson& e : j) elements.push_back(from_json(where, e, *et, std::nullopt));
    return GgufOwnedValue::array(*et, std::move(elements));
  }
  if (t == GgufType::String) {
    if (!j.is_string()) invalid_argument(where + ": expected a string, got " + j.dump());
    return GgufOwnedValue::string(j.get<std::string>());
  }
  if (t == GgufType::Bool) {
    if (!j.is_boolean()) invalid_argument(where + ": expected true or false, got " + j.dump());
    return GgufOwnedValue::boolean(j.get<bool>());
  }
  if (!j.is_number()) invalid_argument(where + ": expected a number, got " + j.dump());
  if (t == GgufType::Float32) return GgufOwnedValue::f32(j.get<float>());
  if (t == GgufType::Float64) return GgufOwnedValue::f64(j.get<double>());
  if (!j.is_number_integer()) invalid_argument(where + ": " + j.dump() + " is not a " + std::string(gguf_type_name(t)));
  const auto v = j.is_number_unsigned() ? integer_value(t, 0, false, j.get<std::uint64_t>())
                                        : integer_value(t, j.get<std::int64_t>(), true, 0);
  if (!v) invalid_argument(where + ": " + j.dump() + " does not fit a " + std::string(gguf_type_name(t)));
  return *v;
}

std::string quoted(const std::string& text, std::size_t width) {
  std::string cut = text.size() > width ? text.substr(0, width) : text;
  std::string out = EditJson(cut).dump(-1, ' ', false, EditJson::error_handler_t::replace);
  if (cut.size() < text.size()) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

void record_set(std::vector<MetadataChange>& changes, GgufMetadata& md, const std::string& key, GgufOwnedValue v) {
  if (const GgufOwnedValue* old = md.find(key)) {
    changes.push_back({MetadataChange::Set, key, describe_metadata_value(*old) + " -> " + describe_metadata_value(v)});
  } else {
    changes.push_back({MetadataChange::Add, key, describe_metadata_value(v)});
  }
  md.set(key, std::move(v));
}

// A JSON value in `given` (a scalar's type or an array's elements'), else in the key's own type,
// else in the type the JSON implies.
GgufOwnedValue typed_value(const GgufMetadata& md, const std::string& where, const std::string& key,
                           std::optional<GgufType> given, const EditJson& j) {
  std::optional<GgufType> type, element;
  if (given) {
    element = given;
  } else if (const GgufOwnedValue* old = md.find(key)) {
    type = old->type();
    if (old->type() == GgufType::Array) element = old->element_type();
  }
  if (element && !type) type = j.is_array() ? GgufType::Array : *element;
  if (type && *type != GgufType::Array) element.reset();
  return from_json(where, j, type, element);
}

EditJson from_loose(const MetadataLooseValue& v) {
  switch (v.kind) {
    case MetadataLooseValue::Bool: return v.boolean;
    case MetadataLooseValue::Int:  // as JSON's text reads: a number without a sign is unsigned
      return v.integer < 0 ? EditJson(v.integer) : EditJson(static_cast<std::uint64_t>(v.integer));
    case MetadataLooseValue::UInt: return v.unsigned_integer;
    case MetadataLooseValue::Float: return v.number;  // NaN and infinities too: JSON's text cannot say them
    case MetadataLooseValue::String: return v.text;
    case MetadataLooseValue::List: break;
  }
  EditJson list = EditJson::array();
  for (const MetadataLooseValue& e : v.list) list.push_back(from_loose(e));
  return list;
}

struct SpecialToken {
  std::string_view name;
  std::string_view key;
};
constexpr SpecialToken kSpecialTokens[] = {
    {"bos", "tokenizer.ggml.bos_token_id"},       {"eos", "tokenizer.ggml.eos_token_id"},
    {"pad", "tokenizer.ggml.padding_token_id"},   {"unk", "tokenizer.ggml.unknown_token_id"},
    {"sep", "tokenizer.ggml.seperator_token_id"},  // ggml's spelling
    {"cls", "tokenizer.ggml.cls_token_id"},       {"mask", "tokenizer.ggml.mask_token_id"},
};

std::uint64_t token_id(const GgufMetadata& md, const std::string& where, const std::string& text) {
  const GgufOwnedValue* tokens = md.find("tokenizer.ggml.tokens");
  const bool have_vocab = tokens && tokens->type() == GgufType::Array && tokens->element_type() == GgufType::String;
  if (text.size() > 1 && text[0] == '#') {
    std::uint64_t id;
    auto [p, ec] = std::from_chars(text.data() + 1, text.data() + text.size(), id);
    if (ec != std::errc() || p != text.data() + text.size() || id > std::numeric_limits<std::uint32_t>::max())
      invalid_argument(where + ": '" + text + "' is not a token id (#0 ... #4294967295)");
    if (have_vocab && id >= tokens->elements().size())
      invalid_argument(where + ": token id " + std::to_string(id) + " is past the vocabulary's " +
                       std::to_string(tokens->elements().size()) + " tokens");
    return id;
  }
  if (!have_vocab)
    invalid_argument(where + ": the file has no tokenizer.ggml.tokens to find '" + text + "' in; give =#ID");
  const auto& list = tokens->elements();
  for (std::size_t i = 0; i < list.size(); ++i)
    if (list[i].text() == text) return i;
  invalid_argument(where + ": no token '" + text + "' in tokenizer.ggml.tokens");
}

}  // namespace
}  // namespace metadata_edit_detail

std::string describe_metadata_value(const GgufOwnedValue& v, std::size_t width) {
  using namespace metadata_edit_detail;
  const std::string type(gguf_type_name(v.type()));
  switch (v.type()) {
    case GgufType::String: return "str " + quoted(v.text(), width);
    case GgufType::Array:
      return "arr[" + std::string(gguf_type_name(v.element_type())) + "," + std::to_string(v.elements().size()) + "]";
    case GgufType::Bool: return type + (v.raw_bits() ? " true" : " false");
    case GgufType::Float32: {
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof buf, std::bit_cast<float>(static_cast<std::uint32_t>(v.raw_bits())));
      return type + " " + std::string(buf, r.ptr);
    }
    case GgufType::Float64: {
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof buf, std::bit_cast<double>(v.raw_bits()));
      return type + " " + std::string(buf, r.ptr);
    }
    default: break;
  }
  if (gguf_type_is_signed(v.type())) {
    const std::uint64_t bits = gguf_scalar_size(v.type()) * 8;
    const std::int64_t s = bits == 64 ? static_cast<std::int64_t>(v.raw_bits())
                                      : static_cast<std::int64_t>(v.raw_bits() << (64 - bits)) >> (64 - bits);
    return type + " " + std::to_string(s);
  }
  return type + " " + std::to_string(v.raw_bits());
}

std::string metadata_change_line(const MetadataChange& c) {
  switch (c.kind) {
    case MetadataChange::Add: return "add     " + c.key + ": " + c.detail;
    case MetadataChange::Set: return "set     " + c.key + ": " + c.detail;
    case MetadataChange::Remove: return "remove  " + c.key + " (was " + c.detail + ")";
    case MetadataChange::Rename: break;
  }
  return "rename  " + c.key + " -> " + c.detail;
}

std::vector<MetadataChange> apply_metadata_edits(GgufMetadata& md, const MetadataEdits& edits) {
  using namespace metadata_edit_detail;
  const MetadataEditNames& n = edits.names;
  std::vector<MetadataChange> changes;
  for (const std::string& pattern : edits.remove) {
    std::vector<std::string> matched;
    for (const auto& e : md.entries())
      if (::fnmatch(pattern.c_str(), e.key.c_str(), 0) == 0) matched.push_back(e.key);
    if (matched.empty()) invalid_argument(n.remove + " " + pattern + ": no metadata key matches");
    for (const std::string& key : matched) {
      changes.push_back({MetadataChange::Remove, key, describe_metadata_value(*md.find(key))});
      md.remove(key);
    }
  }
  for (const std::string& text : edits.rename) {
    const auto [from, to] = split_assignment(n.rename, text);
    if (!md.find(from)) invalid_argument(n.rename + " " + text + ": no metadata key '" + from + "'");
    if (md.find(to)) invalid_argument(n.rename + " " + text + ": the key '" + to + "' exists already");
    md.rename(from, to);
    changes.push_back({MetadataChange::Rename, from, to});
  }
  for (const std::string& text : edits.set) {
    const auto [key, value] = split_assignment(n.set, text);
    const std::string where = n.set + " " + key;
    const GgufOwnedValue* old = md.find(key);
    if (old) {
      record_set(changes, md, key, scalar_from_text(where, old->type(), value));
      continue;
    }
    const auto t = typed(value);
    if (!t || t->first == GgufType::Array)
      invalid_argument(where + ": a new key needs a type: KEY=TYPE:VALUE, TYPE one of " + kTypeList);
    record_set(changes, md, key, scalar_from_text(where, t->first, t->second));
  }
  for (const MetadataValueEdit& edit : edits.set_values) {
    const std::string where = n.set + " " + edit.key;
    const bool array = edit.type.starts_with("arr:");
    std::optional<GgufType> type;
    if (!edit.type.empty()) {
      type = gguf_type_named(array ? std::string_view(edit.type).substr(4) : std::string_view(edit.type));
      if (!type || *type == GgufType::Array)
        invalid_argument(where + ": unknown type '" + edit.type + "', expected one of " + kTypeList + ", or arr:TYPE");
    }
    const EditJson j = from_loose(edit.value);
    if (array && !j.is_array()) invalid_argument(where + ": expected a list for " + edit.type + ", got " + j.dump());
    record_set(changes, md, edit.key, typed_value(md, where, edit.key, type, j));
  }
  for (const std::string& text : edits.set_json) {
    const auto [key, value] = split_assignment(n.set_json, text);
    const std::string where = n.set_json + " " + key;
    std::optional<GgufType> type;
    std::string json_text = value;
    if (const auto t = typed(value)) {
      json_text = t->second;
      if (t->first != GgufType::Array) type = t->first;
    }
    const EditJson j = EditJson::parse(json_text, nullptr, false);
    if (j.is_discarded()) invalid_argument(where + ": '" + json_text + "' is not JSON");
    record_set(changes, md, key, typed_value(md, where, key, type, j));
  }
  if (edits.chat_template_given)
    record_set(changes, md, "tokenizer.chat_template", GgufOwnedValue::string(edits.chat_template));
  for (const std::string& text : edits.special_tokens) {
    const auto [name, value] = split_assignment(n.special_token, text);
    const SpecialToken* token = nullptr;
    for (const auto& t : kSpecialTokens)
      if (t.name == name) token = &t;
    if (!token) invalid_argument(n.special_token + " " + text + ": expected bos, eos, pad, unk, sep, cls or mask");
    const std::string key(token->key);
    const std::uint64_t id = token_id(md, n.special_token + " " + name, value);
    const GgufOwnedValue* old = md.find(key);
    const GgufType type = old && gguf_type_is_integer(old->type()) ? old->type() : GgufType::UInt32;
    const auto v = integer_value(type, 0, false, id);
    if (!v)
      invalid_argument(n.special_token + " " + text + ": id " + std::to_string(id) + " does not fit " + key +
                       "'s type");
    record_set(changes, md, key, *v);
  }
  return changes;
}

}  // namespace onnxq
