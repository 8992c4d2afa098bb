// Internal: URL helpers for remote files.
#pragma once

#include <string>
#include <string_view>

namespace onnxq::remote_detail {

// "scheme://host[:port]" of a URL, lower-cased; empty when it has none.
std::string url_origin(std::string_view url);

// $HF_ENDPOINT (default https://huggingface.co) without a trailing slash.
std::string hf_endpoint();

}  // namespace onnxq::remote_detail
