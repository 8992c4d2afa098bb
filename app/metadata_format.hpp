// How GGUF metadata values look in text tables and in JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "onnxq/gguf/file.hpp"

namespace onnxq::cli {

using Json = nlohmann::ordered_json;

// One-line text: strings quoted and escaped; arrays as type, length and the first
// `max_items` values (all when max_items is 0).
std::string value_to_text(const GgufValue& value, std::size_t max_items);
// Raw text for scripts: strings unquoted, arrays one element per line.
std::string value_to_raw(const GgufValue& value);
// JSON: integers exact, floats as doubles (non-finite as "nan"/"inf"/"-inf"), arrays complete.
Json value_to_json(const GgufValue& value);
// "arr[str,6]" or "u32".
std::string value_type_text(const GgufValue& value);

// Dumps JSON safely: invalid UTF-8 in GGUF strings is replaced, not thrown on.
std::string dump_json(const Json& json);

}  // namespace onnxq::cli
