// The estimate's JSON: one schema for every front end that prints it.
#include <nlohmann/json.hpp>

#include "onnxq/model/memory_estimate.hpp"

namespace onnxq {
namespace {

using Json = nlohmann::ordered_json;

// The memory rows, one side (RAM, VRAM or both) picked from each split.
template <class Pick>
Json memory_json(const MemoryEstimate& e, Pick pick) {
  return {{"embeddings", pick(e.input_weights)},
          {"layers", pick(e.layer_weights)},
          {"output", pick(e.output_weights)},
          {"weights", pick(e.weights())},
          {"k_cache", pick(e.k_cache)},
          {"v_cache", pick(e.v_cache)},
          {"recurrent_state", pick(e.recurrent_state)},
          {"compute", pick(e.compute)},
          {"total", pick(e.total())}};
}

}  // namespace

std::string_view layer_attention_name(const LayerAttention& a) {
  if (a.recurrent) return a.kv_cache ? "recurrent+attention" : "recurrent";
  if (a.shares_kv) return "shared KV";
  if (!a.kv_cache) return "none";
  return a.sliding_window ? "sliding window" : "full";
}

std::string memory_estimate_json(const MemoryEstimate& e, std::string_view file) {
  Json layers = Json::array();
  for (std::size_t i = 0; i < e.layers.size(); ++i) {
    const LayerMemory& l = e.layers[i];
    layers.push_back({{"layer", i},
                      {"offloaded", l.offloaded},
                      {"attention", layer_attention_name(e.model.layers[i])},
                      {"kv_cells", l.cells},
                      {"weights", l.weights},
                      {"k_cache", l.k_cache},
                      {"v_cache", l.v_cache},
                      {"recurrent_state", l.recurrent_state}});
  }
  std::vector<std::string> notes = e.model.notes;
  notes.insert(notes.end(), e.notes.begin(), e.notes.end());
  const Json out = {{"file", file},
                    {"architecture", e.model.architecture.empty() ? Json(nullptr) : Json(e.model.architecture)},
                    {"context", e.context},
                    {"kv_cells", e.cells},
                    {"swa_kv_cells", e.swa_cells},
                    {"k_type", std::string(e.k_type->ggml_name)},
                    {"v_type", std::string(e.v_type->ggml_name)},
                    {"batch", e.batch},
                    {"ubatch", e.ubatch},
                    {"layers", e.layer_count},
                    {"offloaded_layers", e.offloaded_layers},
                    {"output_offloaded", e.output_offloaded},
                    {"ram", memory_json(e, [](const MemorySplit& m) { return m.ram; })},
                    {"vram", memory_json(e, [](const MemorySplit& m) { return m.vram; })},
                    {"total", memory_json(e, [](const MemorySplit& m) { return m.total(); })},
                    {"compute_is_approximate", true},
                    {"per_layer", layers},
                    {"notes", notes}};
  // Names and notes come from the file and need not be UTF-8: bad bytes are replaced, never thrown on.
  return out.dump(2, ' ', false, Json::error_handler_t::replace);
}

}  // namespace onnxq
