// ModelInfo and the JSON of info, list and tokens.
#include "onnxq/model/model_info.hpp"

#include "gguf/json_text.hpp"
#include "onnxq/model/file_type.hpp"

namespace onnxq {
namespace model_info_detail {
namespace {

using json_detail::Json;
using json_detail::optional_json;

// As stored: a number for a scalar key, an array for a per-layer one.
Json layer_values_json(const std::optional<LayerValues>& v) {
  if (!v) return nullptr;
  if (!v->per_layer) return v->at(0);
  return Json(v->values);
}

Json layer_indices(const ModelSummary& m, bool (*pick)(const LayerAttention&)) {
  Json out = Json::array();
  for (std::size_t i = 0; i < m.layers.size(); ++i)
    if (pick(m.layers[i])) out.push_back(i);
  return out;
}

Json model_json(const ModelSummary& m) {
  Json file_type = nullptr;
  if (m.file_type) {
    const std::string_view name = llama_file_type_name(*m.file_type);
    file_type = {{"id", *m.file_type & ~kLlamaFileTypeGuessed},
                 {"name", name.empty() ? Json(nullptr) : Json(std::string(name))},
                 {"guessed", m.file_type_guessed}};
  }
  Json sliding = nullptr;
  if (m.sliding_window)
    sliding = {{"size", *m.sliding_window},
               {"kind", std::string(sliding_window_kind_name(m.sliding_window_kind))},
               {"layers", layer_indices(m, [](const LayerAttention& l) { return l.sliding_window; })}};
  Json recurrent = nullptr;
  if (m.recurrent_layers())
    recurrent = {{"state", std::string(recurrent_state_kind_name(m.recurrent_state))},
                 {"layers", layer_indices(m, [](const LayerAttention& l) { return l.recurrent; })},
                 {"r_values", m.recurrent_r},
                 {"s_values", m.recurrent_s}};
  return {{"architecture", m.architecture.empty() ? Json(nullptr) : Json(m.architecture)},
          {"name", optional_json(m.name)},
          {"type", optional_json(m.type)},
          {"size_label", optional_json(m.size_label)},
          {"file_type", file_type},
          {"quantization_version", optional_json(m.quantization_version)},
          {"parameters", m.parameters},
          {"tensor_bytes", m.tensor_bytes},
          {"bits_per_weight", m.bits_per_weight},
          {"context_length", optional_json(m.context_length)},
          {"embedding_length", optional_json(m.embedding_length)},
          {"block_count", optional_json(m.block_count)},
          {"layers", m.layers.size()},
          {"vocab_size", optional_json(m.vocab_size)},
          {"head_count", layer_values_json(m.head_count)},
          {"head_count_kv", layer_values_json(m.head_count_kv)},
          {"key_length", optional_json(m.key_length)},
          {"value_length", optional_json(m.value_length)},
          {"head_dim_k", m.head_dim_k},
          {"head_dim_v", m.head_dim_v},
          {"feed_forward_length", layer_values_json(m.feed_forward_length)},
          {"expert_count", optional_json(m.expert_count)},
          {"expert_used_count", optional_json(m.expert_used_count)},
          {"expert_shared_count", optional_json(m.expert_shared_count)},
          {"expert_feed_forward_length", optional_json(m.expert_feed_forward_length)},
          {"rope",
           {{"dimension_count", optional_json(m.rope.dimension_count)},
            {"freq_base", optional_json(m.rope.freq_base)},
            {"scaling_type", optional_json(m.rope.scaling_type)},
            {"scaling_factor", optional_json(m.rope.scaling_factor)},
            {"original_context_length", optional_json(m.rope.original_context_length)}}},
          {"sliding_window", sliding},
          {"recurrent", recurrent},
          {"mla", m.mla},
          {"kv_cache", m.has_kv_cache},
          {"kv_cache_layers", layer_indices(m, [](const LayerAttention& l) { return l.kv_cache; })},
          {"notes", m.notes}};
}

Json tokenizer_json(const TokenizerSummary& t) {
  if (!t.present) return nullptr;
  Json special = Json::array();
  for (const SpecialToken& s : t.special)
    special.push_back({{"role", std::string(s.role)},
                       {"key", s.key},
                       {"id", s.id},
                       {"text", s.text ? Json(*s.text) : Json(nullptr)}});
  return {{"model", optional_json(t.model)},
          {"pre", optional_json(t.pre)},
          {"tokens", optional_json(t.tokens)},
          {"merges", optional_json(t.merges)},
          {"scores", t.has_scores},
          {"token_types", t.has_token_types},
          {"special", special},
          {"add_bos_token", optional_json(t.add_bos)},
          {"add_eos_token", optional_json(t.add_eos)},
          {"add_space_prefix", optional_json(t.add_space_prefix)},
          {"chat_template_bytes", optional_json(t.chat_template_bytes)},
          {"named_chat_templates", t.named_chat_templates},
          {"notes", t.notes}};
}

Json shard_json(const ShardFacts& s) {
  if (!s.present) return {{"shard", s.number}, {"path", s.path}, {"present", false}};
  return {{"shard", s.number}, {"path", s.path},       {"present", true},
          {"size", s.size},    {"tensors", s.tensors}, {"data_offset", s.data_offset},
          {"n_kv", s.keys}};
}

}  // namespace
}  // namespace model_info_detail

using json_detail::Json;

std::string_view ModelInfo::scope() const { return !split ? "file" : missing_shards == 0 ? "model" : "shards present"; }

ModelInfo model_info(const GgufModel& model) {
  ModelInfo f;
  f.named = &model.named_shard();
  f.split = f.named->split_number > 0;
  f.missing_shards = model.missing_shards().size();
  f.shard_count = model.shards().size() + f.missing_shards;
  f.tensor_count = model.tensors().size();
  f.per_type = totals_by_type(model);
  for (const TensorInfo& t : model.tensors()) f.total.add(t);
  for (const GgufFile& s : model.shards()) f.file_bytes += s.size;
  f.shards = shard_facts(model);
  f.model = summarize_model(model);
  f.tokenizer = summarize_tokenizer(model);
  return f;
}

std::string ggml_type_label(std::uint32_t ggml_type) {
  const BlockFormat* format = find_format_by_ggml_type(ggml_type);
  return format ? std::string(format->gguf_name) : "type " + std::to_string(ggml_type);
}

std::string model_info_json(const ModelInfo& f, std::string_view label) {
  using namespace model_info_detail;
  Json types = Json::array();
  for (const auto& [type, row] : f.per_type) {
    const BlockFormat* format = find_format_by_ggml_type(type);
    types.push_back({{"type", ggml_type_label(type)},
                     {"ggml_type", type},
                     {"format_id", format ? Json(format->format_id) : Json(nullptr)},
                     {"tensors", row.tensors},
                     {"elements", row.elements},
                     {"bytes", row.bytes}});
  }
  Json shards = Json::array();
  for (const ShardFacts& s : f.shards) shards.push_back(shard_json(s));
  return json_detail::json_text({{"file", label},
                                 {"scope", f.scope()},
                                 {"gguf_version", f.named->version},
                                 {"endianness", f.named->big_endian ? "big" : "little"},
                                 {"alignment", f.named->alignment},
                                 {"file_size", f.file_bytes},
                                 {"data_offset", f.named->data_offset},
                                 {"n_kv", f.named->metadata.size()},
                                 {"n_tensors", f.tensor_count},
                                 {"parameters", f.total.elements},
                                 {"tensor_bytes", f.total.bytes},
                                 {"bits_per_weight", f.total.bits_per_weight()},
                                 {"types", types},
                                 {"shards", shards},
                                 {"model", model_json(f.model)},
                                 {"tokenizer", tokenizer_json(f.tokenizer)}});
}

std::string tensor_list_json(const GgufModel& model, std::span<const TensorInfo* const> tensors) {
  Json out = Json::array();
  const bool split = model.primary().split_number > 0;
  for (const TensorInfo* t : tensors) {
    out.push_back({{"name", t->name},
                   {"type", t->type_name()},
                   {"ggml_type", t->ggml_type},
                   {"format_id", t->format ? Json(t->format->format_id) : Json(nullptr)},
                   {"ne", t->ne},
                   {"shape", t->onnx_shape()},
                   {"elements", t->element_count},
                   {"bytes", t->byte_size},
                   {"offset_in_data", t->offset_in_data},
                   {"file_offset", t->file_offset},
                   {"shard", split ? model.shards().at(t->shard).split_number - 1 : 0},
                   {"size_inferred", t->size_inferred}});
  }
  return json_detail::json_text(out);
}

std::string tokens_json(std::span<const ChosenToken> tokens) {
  Json out = Json::array();
  for (const ChosenToken& row : tokens) {
    const Token& t = row.token;
    Json roles = Json::array();
    for (std::string_view r : row.roles) roles.push_back(std::string(r));
    const std::string_view type_name = t.type ? token_type_name(*t.type) : std::string_view();
    out.push_back(
        {{"id", t.id},
         {"text", std::string(t.text)},
         {"type", t.type ? (type_name.empty() ? Json(*t.type) : Json(std::string(type_name))) : Json(nullptr)},
         {"score", t.score ? Json(static_cast<double>(*t.score)) : Json(nullptr)},
         {"roles", roles}});
  }
  return json_detail::json_text(out);
}

}  // namespace onnxq
