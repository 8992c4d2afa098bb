#include "partial_model.hpp"
#include "io_settings.hpp"
#include "log.hpp"

namespace onnxq::cli {

GgufModel open_present_shards(const std::string& path) {
  GgufModel model = GgufModel::open(path, ShardPolicy::AllowMissing, io_options());
  const auto& missing = model.missing_shards();
  if (!missing.empty())
    log::warn("{}: {} of the model's {} shards are missing: {}; only the tensors of the shards present can be read",
              path, missing.size(), missing.size() + model.shards().size(), missing_shards_text(model));
  return model;
}

std::string missing_shards_text(const GgufModel& model) {
  std::string text;
  for (const MissingShard& m : model.missing_shards()) {
    if (!text.empty()) text += ", ";
    text += std::to_string(m.split_number) + " (" +
            (m.path.empty() ? "file name unknown: this file's name lacks -0000K-of-0000N" : m.path) + ")";
  }
  return text;
}

int shard_number(const GgufModel& model, const TensorInfo& tensor) {
  return model.shards().at(tensor.shard).split_number;
}

}  // namespace onnxq::cli
