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

int shard_number(const GgufModel& model, const TensorInfo& tensor) {
  return model.shards().at(tensor.shard).split_number;
}

}  // namespace onnxq::cli
