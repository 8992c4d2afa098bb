// Rewriting one file of a model (edit, convert-endian) to a new path or over itself.
#include <filesystem>

#include "onnxq/gguf/writer.hpp"

namespace onnxq {

GgufWriteOptions gguf_edit_options(const GgufFile& file) {
  GgufWriteOptions options;
  options.version = file.version;
  options.big_endian = file.big_endian;
  options.data_offset_modulo_block = file.data_offset;
  return options;
}

GgufRewritePlan gguf_plan_rewrite(const GgufModel& model, const GgufFile& file, const GgufMetadata& metadata,
                                  const GgufWriteOptions& options) {
  GgufRewritePlan plan;
  for (const TensorInfo& t : model.tensors())
    if (&model.shards().at(t.shard) == &file) plan.tensors.push_back(gguf_writer_tensor(model, t));
  plan.layout = gguf_plan(metadata, plan.tensors, options);
  return plan;
}

GgufRewrite gguf_rewrite_file(const GgufModel& model, const GgufFile& file, const GgufMetadata& metadata,
                              const GgufWriteOptions& options, const std::string& path,
                              const GgufOutputCreator& create) {
  GgufRewritePlan planned = gguf_plan_rewrite(model, file, metadata, options);
  GgufRewrite result;
  result.plan = std::move(planned.layout);
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
  result.stats = gguf_write(out, result.plan, planned.tensors, options);
  out.commit();
  return result;
}

}  // namespace onnxq
