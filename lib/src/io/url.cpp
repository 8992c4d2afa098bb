// Remote paths: which paths are URLs, and how hf:// paths map onto the Hub's resolve URLs.
#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "onnxq/core/error.hpp"
#include "onnxq/io/remote_file.hpp"
#include "url.hpp"

namespace onnxq {

namespace remote_detail {

std::string url_origin(std::string_view url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return {};
  const auto host_end = url.find_first_of("/?#", scheme_end + 3);
  std::string origin(url.substr(0, host_end));
  std::transform(origin.begin(), origin.end(), origin.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return origin;
}

std::string hf_endpoint() {
  const char* env = std::getenv("HF_ENDPOINT");
  std::string endpoint = env && *env ? env : "https://huggingface.co";
  while (endpoint.ends_with('/')) endpoint.pop_back();
  return endpoint;
}

}  // namespace remote_detail

bool is_remote_path(std::string_view path) {
  return path.starts_with("http://") || path.starts_with("https://") || path.starts_with("hf://");
}

std::string resolve_remote_url(const std::string& path) {
  if (!path.starts_with("hf://")) return path;
  // hf://OWNER/REPO[@REVISION]/PATH
  const std::string_view rest = std::string_view(path).substr(5);
  const auto owner_end = rest.find('/');
  const auto repo_end = owner_end == std::string_view::npos ? owner_end : rest.find('/', owner_end + 1);
  if (owner_end == 0 || owner_end == std::string_view::npos || repo_end == std::string_view::npos ||
      repo_end == owner_end + 1 || repo_end + 1 >= rest.size())
    invalid_argument(path + ": expected hf://OWNER/REPO[@REVISION]/PATH");
  const std::string_view owner = rest.substr(0, owner_end);
  std::string_view repo = rest.substr(owner_end + 1, repo_end - owner_end - 1);
  std::string_view revision = "main";
  if (const auto at = repo.find('@'); at != std::string_view::npos) {
    revision = repo.substr(at + 1);
    repo = repo.substr(0, at);
    if (repo.empty() || revision.empty()) invalid_argument(path + ": expected hf://OWNER/REPO[@REVISION]/PATH");
  }
  return remote_detail::hf_endpoint() + "/" + std::string(owner) + "/" + std::string(repo) + "/resolve/" +
         std::string(revision) + "/" + std::string(rest.substr(repo_end + 1));
}

}  // namespace onnxq
