// The report's data: facts read from the header (overview, tensors, totals), and when asked, values
// decoded (histograms of chosen tensors, the comparison with a reference model).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "onnxq/core/version.hpp"
#include "onnxq/diff/model_diff.hpp"
#include "onnxq/gguf/tensor_reader.hpp"
#include "onnxq/gguf/tensor_selection.hpp"
#include "onnxq/gguf/wire.hpp"
#include "onnxq/model/file_type.hpp"
#include "onnxq/model/model_summary.hpp"
#include "onnxq/model/tokenizer.hpp"
#include "onnxq/report/report.hpp"
#include "onnxq/stats/histogram.hpp"
#include "onnxq/stats/value_stats.hpp"

namespace onnxq {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t kArrayItemsShown = 8;      // a long array is shown by its first items
constexpr std::size_t kStringBytesShown = 4096;  // and a long string by its start (not the chat template)
// Layers the map and the per-layer chart show: more than any model has, few enough that a file naming
// blk.4000000000 cannot make the page draw billions of cells. Tensors of higher layers are listed
// in the table only.
constexpr std::uint64_t kMaxMapLayers = 4096;

template <class T>
Json optional_json(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

// A number as JSON; NaN and infinities (which JSON has no words for) as strings.
Json number_json(double v) {
  if (std::isfinite(v)) return v;
  return std::isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity";
}

std::string scalar_text(const GgufValue& v) {
  switch (v.type()) {
    case GgufType::String: {
      const std::string_view s = v.as_string();
      if (s.size() <= kStringBytesShown) return std::string(s);
      return std::string(s.substr(0, kStringBytesShown)) + "… (" + std::to_string(s.size()) + " bytes)";
    }
    case GgufType::Bool: return v.as_bool() ? "true" : "false";
    case GgufType::Float32:
    case GgufType::Float64: {
      char text[32];
      const auto end = std::to_chars(text, text + sizeof text, v.as_f64()).ptr;
      return std::string(text, end);
    }
    case GgufType::Array: return "[array]";
    case GgufType::Int8:
    case GgufType::Int16:
    case GgufType::Int32:
    case GgufType::Int64: return std::to_string(v.as_i64());
    default: return std::to_string(v.as_u64());
  }
}

Json metadata_json(const GgufModel& model) {
  Json rows = Json::array();
  for (const GgufKeyValue& kv : model.metadata()) {
    Json row = {{"key", kv.key}};
    if (kv.value.type() != GgufType::Array) {
      row["type"] = gguf_type_name(kv.value.type());
      row["value"] = kv.key == "tokenizer.chat_template" ? "(shown under Chat template)" : scalar_text(kv.value);
    } else {
      const GgufArray array = kv.value.as_array();
      row["type"] = "arr[" + std::string(gguf_type_name(array.element_type())) + "]";
      row["count"] = array.size();
      std::string text;
      std::size_t shown = 0;
      array.for_each([&](const GgufValue& e) {
        if (shown == kArrayItemsShown) return false;
        text += (shown++ ? ", " : "") + scalar_text(e);
        return true;
      });
      if (array.size() > shown) text += ", … (" + std::to_string(array.size()) + " items)";
      row["value"] = "[" + text + "]";
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

Json overview_json(const GgufModel& model, const ReportOptions& options) {
  const ModelSummary m = summarize_model(model);
  const TokenizerSummary t = summarize_tokenizer(model);
  const GgufFile& named = model.named_shard();
  std::uint64_t file_bytes = 0;
  for (const GgufFile& s : model.shards()) file_bytes += s.size;
  Json file_type = nullptr;
  if (m.file_type) {
    const std::string_view name = llama_file_type_name(*m.file_type);
    file_type = (name.empty() ? "type " + std::to_string(*m.file_type & ~kLlamaFileTypeGuessed) : std::string(name)) +
                (m.file_type_guessed ? " (guessed)" : "");
  }
  Json special = Json::array();
  for (const SpecialToken& s : t.special)
    special.push_back({{"role", s.role}, {"id", s.id}, {"text", optional_json(s.text)}});
  Json chat_template = nullptr;
  if (const GgufValue* v = model.find_metadata("tokenizer.chat_template"); v && v->type() == GgufType::String)
    chat_template = std::string(v->as_string());
  return {{"label", options.model_label},
          {"onnxq_version", kVersion},
          {"gguf_version", named.version},
          {"byte_order", named.big_endian ? "big-endian" : "little-endian"},
          {"alignment", named.alignment},
          {"shards", model.shards().size() + model.missing_shards().size()},
          {"missing_shards", model.missing_shards().size()},
          {"file_bytes", file_bytes},
          {"tensor_count", model.tensors().size()},
          {"architecture", m.architecture},
          {"name", optional_json(m.name)},
          {"size_label", optional_json(m.size_label)},
          {"file_type", file_type},
          {"parameters", m.parameters},
          {"tensor_bytes", m.tensor_bytes},
          {"bits_per_weight", m.bits_per_weight},
          {"context_length", optional_json(m.context_length)},
          {"embedding_length", optional_json(m.embedding_length)},
          {"block_count", optional_json(m.block_count)},
          {"vocab_size", optional_json(m.vocab_size)},
          {"expert_count", optional_json(m.expert_count)},
          {"expert_used_count", optional_json(m.expert_used_count)},
          {"tokenizer", t.present ? Json{{"model", optional_json(t.model)},
                                         {"pre", optional_json(t.pre)},
                                         {"tokens", optional_json(t.tokens)},
                                         {"merges", optional_json(t.merges)},
                                         {"special", special}}
                                  : Json(nullptr)},
          {"chat_template", chat_template},
          {"notes", m.notes},
          {"metadata", metadata_json(model)}};
}

// "blk.12.attn_q.weight" -> "attn_q"; "enc.blk.3.ffn_up.bias" -> "enc.ffn_up.bias". Empty outside the layers.
std::string tensor_kind(std::string_view name) {
  const std::size_t blk = name.find("blk.");
  if (!tensor_layer(name)) return {};
  const std::size_t dot = name.find('.', blk + 4);
  std::string kind = std::string(name.substr(0, blk)) + std::string(name.substr(dot + 1));
  if (kind.ends_with(".weight")) kind.resize(kind.size() - 7);
  return kind;
}

double bits_per_weight(const TensorInfo& t) {
  return t.element_count ? 8.0 * static_cast<double>(t.byte_size) / static_cast<double>(t.element_count) : 0.0;
}

Json tensors_json(const GgufModel& model, Json& kinds, Json& layer_bytes, Json& types) {
  Json rows = Json::array();
  std::vector<std::string> kind_order;  // as first met
  std::unordered_set<std::string> seen_kinds;
  std::vector<std::uint64_t> per_layer;
  struct TypeTotal {
    std::string name;
    std::uint64_t tensors = 0, elements = 0, bytes = 0;
  };
  std::map<std::uint32_t, TypeTotal> per_type;
  for (const TensorInfo& t : model.tensors()) {
    const std::optional<std::uint64_t> parsed = tensor_layer(t.name);
    const bool in_layer = parsed.has_value() && parsed.value() < kMaxMapLayers;
    const std::uint64_t layer = in_layer ? parsed.value() : 0;
    const std::string kind = in_layer ? tensor_kind(t.name) : std::string();
    if (in_layer) {
      if (seen_kinds.insert(kind).second) kind_order.push_back(kind);
      if (per_layer.size() <= layer) per_layer.resize(layer + 1);
      per_layer[layer] += t.byte_size;
    }
    TypeTotal& total = per_type[t.ggml_type];
    total.name = t.type_name();
    total.tensors += 1;
    total.elements += t.element_count;
    total.bytes += t.byte_size;
    rows.push_back({{"name", t.name},
                    {"shape", t.onnx_shape()},
                    {"type", t.type_name()},
                    {"elements", t.element_count},
                    {"bytes", t.byte_size},
                    {"bpw", bits_per_weight(t)},
                    {"layer", in_layer ? Json(layer) : Json(nullptr)},
                    {"kind", in_layer ? Json(kind) : Json(nullptr)},
                    {"expert", kind.find("_exps") != std::string::npos || kind.find("_shexp") != std::string::npos}});
  }
  kinds = kind_order;
  layer_bytes = per_layer;
  types = Json::array();
  for (const auto& [id, total] : per_type)
    types.push_back(
        {{"type", total.name},
         {"ggml_type", id},
         {"tensors", total.tensors},
         {"elements", total.elements},
         {"bytes", total.bytes},
         {"bpw", total.elements ? 8.0 * static_cast<double>(total.bytes) / static_cast<double>(total.elements) : 0.0}});
  return rows;
}

Json histogram_json(const Histogram& h) {
  return {{"lo", number_json(h.lo)}, {"hi", number_json(h.hi)}, {"counts", h.counts}};
}

Json values_json(const GgufModel& model, const ReportOptions& options) {
  Json rows = Json::array();
  if (options.values_glob.empty()) return rows;
  for (const TensorInfo& t : model.tensors()) {
    if (!glob_matches(options.values_glob, t.name)) continue;
    if (!t.format) {
      rows.push_back({{"name", t.name}, {"type", t.type_name()}, {"skipped", "onnxq cannot decode this type"}});
      continue;
    }
    if (options.on_tensor) options.on_tensor(t.name);
    const TensorReader reader(model, t);
    const TensorStats stats = compute_tensor_stats(reader, t.element_count, options.threads, options.on_bytes);
    const ValueStats& v = stats.values;
    Json row = {{"name", t.name},
                {"type", t.type_name()},
                {"count", v.count},
                {"finite", v.finite},
                {"zeros", v.zeros},
                {"nan", v.nan},
                {"inf", v.inf},
                {"min", number_json(v.min)},
                {"max", number_json(v.max)},
                {"mean", number_json(v.mean)},
                {"std", number_json(v.stddev())},
                {"blocks", stats.blocks},
                {"scale_nan_blocks", stats.scales.nan},
                {"scale_inf_blocks", stats.scales.inf},
                {"scale_subnormal_blocks", stats.scales.subnormal}};
    row["histogram"] = v.finite ? histogram_json(value_histogram(reader, t.element_count, v.min, v.max,
                                                                 options.histogram_bins, options.threads))
                                : Json(nullptr);
    const ScaleHistogram scales = scale_histogram(reader, options.threads);
    row["scales"] = scales.blocks ? Json{{"log2_abs", histogram_json(scales.log2_abs)},
                                         {"blocks", scales.blocks},
                                         {"zero_or_nonfinite", scales.zero_or_nonfinite}}
                                  : Json(nullptr);
    rows.push_back(std::move(row));
  }
  return rows;
}

Json compare_json(const GgufModel& model, const ReportOptions& options) {
  if (!options.reference) return nullptr;
  ModelDiffOptions diff_options;
  diff_options.threads = options.threads;
  diff_options.on_bytes = options.on_bytes;
  diff_options.on_tensor = options.on_tensor;
  const ModelDifference d = diff_models(model, *options.reference, diff_options);
  Json rows = Json::array();
  for (const TensorDifference& t : d.tensors) {
    Json row = {{"name", t.name}, {"type", t.type_a}, {"reference_type", t.type_b}};
    if (t.shape_a != t.shape_b) {
      row["skipped"] = "shapes differ";
    } else if (!t.compared) {
      row["skipped"] = "onnxq cannot decode this type";
    } else {
      row["elements"] = t.values.count;
      row["differing"] = t.values.differing;
      row["nonfinite"] = t.values.nonfinite;
      row["rms"] = number_json(t.values.rms());
      row["max_abs"] = number_json(t.values.max_abs);
      row["nmse"] = number_json(t.values.normalized_mse());
    }
    rows.push_back(std::move(row));
  }
  return {{"reference", options.reference_label},
          {"tensors", rows},
          {"only_in_model", d.only_a},
          {"only_in_reference", d.only_b}};
}

}  // namespace

std::string report_json(const GgufModel& model, const ReportOptions& options) {
  Json kinds, layer_bytes, types;
  Json tensors = tensors_json(model, kinds, layer_bytes, types);
  const Json out = {{"overview", overview_json(model, options)},
                    {"types", types},
                    {"kinds", kinds},
                    {"layer_bytes", layer_bytes},
                    {"tensors", std::move(tensors)},
                    {"values", values_json(model, options)},
                    {"compare", compare_json(model, options)}};
  return out.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::uint64_t report_decoded_bytes(const GgufModel& model, const ReportOptions& options) {
  std::uint64_t total = 0;
  for (const TensorInfo& t : model.tensors()) {
    if (!options.values_glob.empty() && t.format && glob_matches(options.values_glob, t.name)) total += t.byte_size;
    if (!options.reference) continue;
    const TensorInfo* r = options.reference->find_tensor(t.name);
    if (r && r->ne == t.ne && t.format && r->format) total += t.byte_size;
  }
  return total;
}

}  // namespace onnxq
