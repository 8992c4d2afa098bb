// How GGUF metadata values look in text tables and in JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "onnxq/gguf/file.hpp"

namespace onnxq::cli {

using Json = nlohmann::ordered_json;

// One-line text: strings quoted, with control bytes, backslashes and quotes escaped (\n, \xNN, \\,
// \"); arrays as type, length and the first `max_items` values (all when max_items is 0).
std::string value_to_text(const GgufValue& value, std::size_t max_items);
// Text for scripts: a string unquoted, as stored (escaped as for a terminal when `terminal`);
// an array one element per line, each escaped (\n, \xNN, \\) so that no element spans lines.
std::string value_to_raw(const GgufValue& value, bool terminal);
// An array's type for JSON: {"element_type", "count"}, and for an array of arrays "elements":
// the same for each inner array, whose types and lengths may differ.
Json array_type_json(const GgufArray& array);
// JSON: integers exact, floats as doubles (non-finite as "nan"/"inf"/"-inf"), arrays complete.
Json value_to_json(const GgufValue& value);
// "arr[str,6]" or "u32".
std::string value_type_text(const GgufValue& value);

// Dumps JSON safely: invalid UTF-8 in GGUF strings is replaced, not thrown on.
std::string dump_json(const Json& json);

}  // namespace onnxq::cli
