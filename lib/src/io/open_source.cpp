#include "onnxq/io/open_source.hpp"

#include "onnxq/io/mapped_source.hpp"
#include "onnxq/io/pread_source.hpp"
#include "onnxq/io/remote_file.hpp"

namespace onnxq {

std::shared_ptr<const ByteSource> open_source(const std::string& path_or_url, const IoOptions& options) {
  if (is_remote_path(path_or_url)) return open_remote_file(path_or_url, options.remote);
  if (options.local == LocalReads::Pread) return PreadSource::open(path_or_url);
  return MappedSource::open(path_or_url);
}

}  // namespace onnxq
