// The safetensors export plan: dtypes, shards, headers and the index.
#include "onnxq/onnx/safetensors_export.hpp"

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/gguf/split.hpp"
#include "onnxq/npy/safetensors_writer.hpp"

namespace onnxq {
namespace {

std::map<std::string, std::string> export_metadata(const GgufModel& model) {
  std::map<std::string, std::string> meta;
  meta["format"] = "pt";  // what Hugging Face loaders look for
  for (const GgufKeyValue& kv : model.metadata())
    if (kv.key.starts_with("general.") && kv.value.type() == GgufType::String)
      meta[std::string(kv.key)] = std::string(kv.value.as_string());
  return meta;
}

// Greedy in file order; a tensor larger than the limit gets a shard of its own (as HF does).
std::vector<std::vector<SafetensorsExportTensor>> assign_shards(const std::vector<SafetensorsExportTensor>& tensors,
                                                                std::uint64_t limit) {
  std::vector<std::vector<SafetensorsExportTensor>> shards(1);
  std::uint64_t size = 0;
  for (const SafetensorsExportTensor& t : tensors) {
    if (limit && !shards.back().empty() && size + t.bytes > limit) {
      shards.emplace_back();
      size = 0;
    }
    shards.back().push_back(t);
    size += t.bytes;
  }
  return shards;
}

std::string index_text(const std::vector<SafetensorsExportFile>& files, std::uint64_t total) {
  nlohmann::json weight_map = nlohmann::json::object();  // sorted by name, as HF writes it
  for (const SafetensorsExportFile& f : files)
    for (const SafetensorsExportTensor& t : f.tensors)
      weight_map[std::string(t.info->name)] = std::filesystem::path(f.name).filename().string();
  const nlohmann::ordered_json doc = {{"metadata", {{"total_size", total}}}, {"weight_map", weight_map}};
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace

SafetensorsExportPlan plan_safetensors_export(const GgufModel& model, std::span<const TensorInfo* const> tensors,
                                              std::optional<DType> float_dtype, const std::string& output,
                                              std::uint64_t max_shard_bytes) {
  SafetensorsExportPlan plan;
  std::vector<SafetensorsExportTensor> planned;
  for (const TensorInfo* t : tensors) {
    const DType dtype = export_decode_dtype(*t->format, float_dtype);
    safetensors_dtype(dtype);  // fails early for a dtype safetensors cannot hold
    const auto bytes = checked_mul(t->element_count, dtype_info(dtype).bits / 8);
    if (!bytes) invalid_input(std::string(t->name) + ": decoded size overflows");
    planned.push_back({t, dtype, *bytes});
    plan.bytes_in += t->byte_size;
    plan.bytes_out += *bytes;
  }
  auto shards = assign_shards(planned, max_shard_bytes);
  std::string base = output;
  if (base.ends_with(".safetensors")) base.resize(base.size() - std::string_view(".safetensors").size());
  const auto metadata = export_metadata(model);
  for (std::size_t s = 0; s < shards.size(); ++s) {
    std::vector<SafetensorsEntry> entries;
    std::uint64_t offset = 0;
    for (const SafetensorsExportTensor& t : shards[s]) {
      entries.push_back({std::string(t.info->name), t.dtype, t.info->onnx_shape(), offset, offset + t.bytes});
      offset += t.bytes;
    }
    const std::string name =
        shards.size() == 1 ? output : base + split_shard_suffix(s + 1, shards.size()) + ".safetensors";
    plan.files.push_back({name, safetensors_header(entries, metadata), std::move(shards[s])});
  }
  if (plan.files.size() > 1) {
    plan.index_name = base + ".safetensors.index.json";
    plan.index_text = index_text(plan.files, plan.bytes_out);
  }
  return plan;
}

}  // namespace onnxq
