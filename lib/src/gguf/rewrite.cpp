// Rewriting one file of a model (edit, convert-endian) to a new path or over itself.
#include <filesystem>

#include "onnxq/gguf/writer.hpp"

namespace onnxq {

GgufRewrite gguf_rewrite_file(const GgufModel& model, const GgufFile& file, const GgufMetadata& metadata,
                              const GgufWriteOptions& options, const std::string& path,
                              const GgufOutputCreator& create) {
  std::vector<GgufWriterTensor> tensors;
  for (const TensorInfo& t : model.tensors())
    if (&model.shards().at(t.shard) == &file) tensors.push_back(gguf_writer_tensor(model, t));
  GgufRewrite result;
  result.plan = gguf_plan(metadata, tensors, options);
  AtomicFile::Options file_options;
  result.path = path;
  if (path.empty()) {
    // The file a symlink names is replaced, not the link; and the new file reaches the disk before
    // it takes the name of the user's only copy.
    result.path = std::filesystem::canonical(file.path).string();
    file_options.durable = true;
    file_options.replaces_input = true;
  }
  AtomicFile out = create ? create(result.path, file_options) : AtomicFile::create(result.path, file_options);
  result.stats = gguf_write(out, result.plan, tensors, options);
  out.commit();
  return result;
}

}  // namespace onnxq
