// Remote GGUF files: http:// and https:// URLs read with HTTP range requests (libcurl), and
// hf://OWNER/REPO[@REVISION]/PATH paths of the Hugging Face Hub, resolved as huggingface_hub does.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "onnxq/io/byte_source.hpp"
#include "onnxq/io/io_options.hpp"

namespace onnxq {

// True for http://, https:// and hf:// paths.
bool is_remote_path(std::string_view path);

// The URL a remote path names: hf://OWNER/REPO[@REVISION]/PATH becomes
// $HF_ENDPOINT/OWNER/REPO/resolve/REVISION/PATH (HF_ENDPOINT default https://huggingface.co,
// REVISION default main); http(s) URLs stay as they are. Throws Error(InvalidArgument).
std::string resolve_remote_url(const std::string& path);

// Opens a remote file. Its first range request reads the first bytes and learns the size and
// the version (ETag or Last-Modified) that every later request must match. HF_TOKEN, when set,
// is sent as a bearer token to $HF_ENDPOINT's host only (never after a redirect to another
// host). Throws Error(Io) with one line that names the path.
std::shared_ptr<const ByteSource> open_remote_file(const std::string& path, const RemoteOptions& options = {});

}  // namespace onnxq
