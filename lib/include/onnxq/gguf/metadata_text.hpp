// GGUF metadata values as every front end shows them: one line for a table, the value as stored
// for a script, and JSON (`onnxq meta --json`) with 64-bit integers exact.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "onnxq/gguf/file.hpp"

namespace onnxq {

// One line: strings quoted, their control bytes, backslashes and quotes escaped (\n, \xNN, \\, \");
// arrays as [a, b, ...] with the first `max_items` values (all when max_items is 0; strings then
// shown whole, else cut after 80 bytes with "...").
std::string gguf_value_text(const GgufValue& value, std::size_t max_items);
// For scripts: a string unquoted, as stored (its control bytes escaped when `escape`); an array one
// element per line, each escaped (\n, \xNN, \\) so that no element spans lines.
std::string gguf_value_raw(const GgufValue& value, bool escape);
// "arr[str,6]" or "u32".
std::string gguf_value_type_text(const GgufValue& value);

// The records as JSON text: with `by_key`, {key: value, ...}; else [{key, type, value}, ...] with an
// array's element_type and count (for an array of arrays, "elements": the same for each inner
// array). Integers exact, floats as doubles (non-finite ones as "nan", "inf", "-inf"), arrays
// complete.
std::string gguf_metadata_json(std::span<const GgufKeyValue* const> records, bool by_key);

}  // namespace onnxq
