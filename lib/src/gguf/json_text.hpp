// Internal: JSON as the library writes it for the front ends (nlohmann's ordered JSON: keys in the
// order written) and its text, which every --json output and Python's dicts share.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace onnxq::json_detail {

using Json = nlohmann::ordered_json;

// Indented by two spaces; bytes of a file that are not UTF-8 replaced (U+FFFD), never thrown on.
inline std::string json_text(const Json& json) { return json.dump(2, ' ', false, Json::error_handler_t::replace); }

template <class T>
Json optional_json(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

}  // namespace onnxq::json_detail
