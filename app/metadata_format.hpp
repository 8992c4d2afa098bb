// The CLI's JSON: nlohmann's ordered JSON, dumped as the library dumps its own (onnxq/gguf/metadata_text.hpp
// formats metadata values as text and JSON).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace onnxq::cli {

using Json = nlohmann::ordered_json;

// Dumps JSON safely: invalid UTF-8 in GGUF strings is replaced, not thrown on.
inline std::string dump_json(const Json& json) { return json.dump(2, ' ', false, Json::error_handler_t::replace); }

}  // namespace onnxq::cli
