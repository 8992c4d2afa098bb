// Tensor counts per type, per layer group and per shard.
#include "onnxq/model/tensor_totals.hpp"

#include <algorithm>

#include "onnxq/model/model_summary.hpp"

namespace onnxq {

void TensorTotals::add(const TensorInfo& t) {
  tensors += 1;
  elements += t.element_count;
  bytes += t.byte_size;
}

double TensorTotals::bits_per_weight() const {
  return elements ? 8.0 * static_cast<double>(bytes) / static_cast<double>(elements) : 0.0;
}

std::map<std::uint32_t, TensorTotals> totals_by_type(const GgufModel& model) {
  std::map<std::uint32_t, TensorTotals> out;
  for (const TensorInfo& t : model.tensors()) out[t.ggml_type].add(t);
  return out;
}

std::string tensor_group(std::string_view name) {
  if (!tensor_layer(name)) return "base";
  return std::string(name.substr(0, name.find('.', name.find("blk.") + 4)));
}

std::vector<TensorGroup> group_tensors_by_layer(std::span<const TensorInfo* const> tensors) {
  std::vector<TensorGroup> groups;
  std::map<std::string, std::size_t, std::less<>> index;
  for (const TensorInfo* t : tensors) {
    std::string name = tensor_group(t->name);
    auto [it, added] = index.try_emplace(name, groups.size());
    if (added) groups.push_back({std::move(name), {}, {}});
    TensorGroup& g = groups[it->second];
    g.tensors.push_back(t);
    g.totals.add(*t);
  }
  return groups;
}

std::vector<ShardFacts> shard_facts(const GgufModel& model) {
  std::vector<ShardFacts> out;
  for (const GgufFile& s : model.shards())
    out.push_back({s.split_number, s.path, true, s.data_offset, s.metadata.size(), s.tensors.size(), s.size});
  for (const MissingShard& m : model.missing_shards()) out.push_back({m.split_number, m.path, false});
  std::sort(out.begin(), out.end(), [](const ShardFacts& a, const ShardFacts& b) { return a.number < b.number; });
  return out;
}

}  // namespace onnxq
