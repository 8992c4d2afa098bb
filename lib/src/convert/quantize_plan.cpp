#include "onnxq/convert/quantize_plan.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>

#include "llama_presets.hpp"
#include "llama_rules.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/decode/quantize_rows.hpp"
#include "onnxq/formats/format.hpp"
#include "onnxq/gguf/rules.hpp"
#include "onnxq/gguf/tensor_selection.hpp"

namespace onnxq {
namespace {

using namespace convert_detail;

// The architecture-agnostic rule leaves tensors of at most this many elements as they are (what
// ComfyUI-GGUF's convert.py does for diffusion models: biases, scales, tiny projections).
constexpr std::uint64_t kSmallTensorElements = 1024;

// What --type named.
struct Target {
  std::optional<Preset> preset;
  std::uint32_t type = 0;  // the block type, or the preset's default type
  Ftype ftype = Ftype::ALL_F32;
};

bool is_plain_float(std::uint32_t t) { return t == ggml::F32 || t == ggml::F16 || t == ggml::BF16; }

// A type a model's tensors may be given: a block type some llama file type names, or F32/F16/BF16.
const BlockFormat* target_format(std::uint32_t ggml_type) {
  const BlockFormat* f = find_format_by_ggml_type(ggml_type);
  if (!f) return nullptr;
  if (is_plain_float(ggml_type)) return f;
  return f->is_block_format() && file_type_of_type(ggml_type) ? f : nullptr;
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

Target parse_target(const std::string& text) {
  Target t;
  // An upper-case preset name means the preset, also where it is a block type's name too (Q8_0,
  // Q4_K, F16); any other spelling of a block type means that type; then presets in any case.
  t.preset = find_preset(text, false);
  if (!t.preset) {
    if (const BlockFormat* f = find_format(text)) {
      if (!target_format(f->ggml_type))
        invalid_argument("--type " + text + ": " + std::string(f->ggml_name) +
                         " is not a type llama.cpp loads model weights in");
      t.type = f->ggml_type;
      t.ftype = *file_type_of_type(f->ggml_type);
      return t;
    }
    t.preset = find_preset(text, true);
  }
  if (!t.preset)
    invalid_argument("--type " + text + ": not a block type (see `onnxq formats`) nor a preset (" +
                     join(quantize_preset_names()) + ")");
  t.ftype = t.preset->ftype;
  t.type = preset_default_type(t.ftype);
  return t;
}

std::string type_name(std::uint32_t ggml_type) {
  const BlockFormat* f = find_format_by_ggml_type(ggml_type);
  return f ? std::string(f->ggml_name) : "type " + std::to_string(ggml_type);
}

// The sort key of llama_model_loader's weights_map: the N of a "blk.N." prefix (-1 without one), then
// the name. llama-quantize visits tensors in this order, and its layer counters follow it.
std::int64_t blk_number(const std::string& name) {
  constexpr std::string_view prefix = "blk.";
  if (name.compare(0, prefix.size(), prefix) != 0) return -1;
  std::size_t i = prefix.size();
  const bool negative = i < name.size() && name[i] == '-';
  if (i < name.size() && (name[i] == '-' || name[i] == '+')) ++i;
  if (i >= name.size() || name[i] < '0' || name[i] > '9') return -1;
  std::int64_t n = 0;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9' && n < (std::int64_t{1} << 40))
    n = n * 10 + (name[i++] - '0');
  return negative ? -n : n;
}

std::vector<std::size_t> llama_visit_order(std::span<const PlanInputTensor> tensors) {
  std::vector<std::size_t> order(tensors.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<std::int64_t> blk(tensors.size());
  for (std::size_t i = 0; i < tensors.size(); ++i) blk[i] = blk_number(tensors[i].name);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (blk[a] != blk[b]) return blk[a] < blk[b];
    return tensors[a].name < tensors[b].name;
  });
  return order;
}

// The tensor's element count and its bytes in format f, as the rule book sizes them.
std::uint64_t element_count(const PlanInputTensor& t) {
  const std::optional<std::uint64_t> n = gguf_element_count(t.ne);
  if (!n) invalid_input("tensor '" + t.name + "': its element count is past GGUF's limits");
  return *n;
}

std::uint64_t byte_size(const PlanInputTensor& t, const BlockFormat& f) {
  if (!gguf_whole_blocks(f, t.ne))
    invalid_input("tensor '" + t.name + "': row length " + std::to_string(t.ne.empty() ? 1 : t.ne[0]) +
                  " is not a multiple of " + std::string(f.ggml_name) + "'s block of " +
                  std::to_string(f.block_elements));
  const std::optional<std::uint64_t> bytes = gguf_blocks_bytes(f, t.ne);
  if (!bytes)
    invalid_input("tensor '" + t.name + "': its size in " + std::string(f.ggml_name) + " is past GGUF's limits");
  return *bytes;
}

class Planner {
 public:
  Planner(const QuantizePlanOptions& options, const Target& target, const ModelFacts& model,
          std::span<const PlanInputTensor> tensors)
      : options_(options), target_(target), model_(model) {
    state_.has_imatrix = options.have_imatrix;
    state_.n_ffn = static_cast<int>(std::min<std::uint32_t>(model.n_layer, 0x7fffffff));
    for (const PlanInputTensor& t : tensors) {
      const Category c = tensor_category(t.name);
      if (category_is_attn_v(c)) ++state_.n_attention_wv;
      if (c == Category::Output) state_.has_tied_embeddings = false;
    }
  }

  PlannedTensor plan(const PlanInputTensor& t) {
    const BlockFormat* from = find_format_by_ggml_type(t.ggml_type);
    if (!from)
      invalid_input("tensor '" + t.name + "': type " + std::to_string(t.ggml_type) + " is not one onnxq knows");
    const std::uint64_t elements = element_count(t);
    PlannedTensor p;
    p.from_type = p.to_type = t.ggml_type;
    p.bytes_before = p.bytes_after = byte_size(t, *from);
    p.copy = true;

    for (const std::string& glob : options_.keep)
      if (glob_matches(glob, t.name)) return with_reason(p, "--keep " + glob);
    if (!from->is_block_format() && !is_plain_float(t.ggml_type))
      return with_reason(p, "kept: " + std::string(from->ggml_name) + " is not a float type");
    const std::optional<std::string> excluded = model_.known            ? llama_exclusion(t.name, t.ne)
                                                : tensor_dims(t.ne) < 2 ? std::optional<std::string>("1-D")
                                                                        : std::nullopt;
    if (excluded) return with_reason(p, "kept: " + *excluded);

    const std::uint64_t row = t.ne.empty() ? 1 : t.ne[0];
    std::uint32_t to;
    std::string reason;
    if (const TensorTypeOverride* o = first_override(t.name)) {
      to = o->ggml_type;
      reason = "--tensor-type " + o->glob + "=" + type_name(to);
    } else if (!model_.known && elements <= kSmallTensorElements) {
      return with_reason(
          p, "kept: " + std::to_string(elements) + " elements, at most " + std::to_string(kSmallTensorElements));
    } else if (!target_.preset) {
      to = target_.type;
      reason = "type " + type_name(to);
    } else if (!model_.known) {
      to = target_.type;
      if (target_.ftype == Ftype::MXFP4_MOE && !(t.ne.size() > 2 && t.ne[2] > 1)) to = ggml::Q8_0;
      reason = std::string(target_.preset->name) + (to == target_.type ? "" : ": not an expert tensor");
    } else if (!is_plain_float(target_.type)) {
      const RuleChoice c =
          llama_rule_type(state_, model_, target_.ftype, target_.type, t.name, t.ne, tensor_category(t.name));
      to = c.type;
      reason = std::string(target_.preset->name) + (c.rule.empty() ? "" : ": " + std::string(c.rule));
    } else {
      to = target_.type;  // F16, BF16, F32: llama-quantize applies no rules, overrides nor fallbacks
      reason = std::string(target_.preset->name);
    }

    const std::optional<std::uint32_t> fitted = llama_fallback(to, row);
    if (!fitted && model_.known)
      invalid_argument("tensor '" + t.name + "': row length " + std::to_string(row) + " is not a multiple of " +
                       type_name(to) + "'s block of " + std::to_string(find_format_by_ggml_type(to)->block_elements) +
                       ", and llama-quantize has no fallback type for " + type_name(to));
    const std::uint32_t chosen = fitted.value_or(ggml::F16);
    if (chosen != to)
      reason += "; fallback: " + std::to_string(row) + " is not a multiple of " +
                std::to_string(find_format_by_ggml_type(to)->block_elements) + ", " + type_name(chosen);
    if (chosen == t.ggml_type) return with_reason(p, reason + "; already " + type_name(chosen));

    const BlockFormat& f = *find_format_by_ggml_type(chosen);
    p.to_type = chosen;
    p.copy = false;
    p.bytes_after = byte_size(t, f);
    p.reason = std::move(reason);
    return p;
  }

 private:
  static PlannedTensor with_reason(PlannedTensor p, std::string reason) {
    p.reason = std::move(reason);
    return p;
  }

  const TensorTypeOverride* first_override(const std::string& name) const {
    for (const TensorTypeOverride& o : options_.tensor_types)
      if (glob_matches(o.glob, name)) return &o;
    return nullptr;
  }

  const QuantizePlanOptions& options_;
  const Target& target_;
  const ModelFacts& model_;
  RuleState state_;
};

void check_overrides(const QuantizePlanOptions& options) {
  for (const TensorTypeOverride& o : options.tensor_types)
    if (!target_format(o.ggml_type))
      invalid_argument("--tensor-type " + o.glob + ": " + type_name(o.ggml_type) +
                       " is not a type llama.cpp loads model weights in");
}

void check_refusals(const QuantizePlan& plan, std::span<const PlanInputTensor> tensors,
                    const QuantizePlanOptions& options, Ftype ftype) {
  if (!options.allow_requantize)
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      const PlannedTensor& p = plan.tensors[i];
      if (!p.copy && find_format_by_ggml_type(p.from_type)->is_block_format())
        invalid_argument("tensor '" + tensors[i].name + "' is already " + type_name(p.from_type) +
                         "; quantizing it again to " + type_name(p.to_type) + " needs --allow-requantize");
    }
  if (!options.have_imatrix)
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      const PlannedTensor& p = plan.tensors[i];
      if (p.copy) continue;
      if (llama_requires_imatrix(tensors[i].name, p.to_type, ftype) ||
          quantize_requires_importance(*find_format_by_ggml_type(p.to_type)))
        invalid_argument("tensor '" + tensors[i].name + "': " + type_name(p.to_type) +
                         " needs an importance matrix (--imatrix), as llama-quantize requires");
    }
}

}  // namespace

std::vector<std::string> quantize_preset_names() {
  std::vector<std::string> names;
  for (std::string_view n : preset_names()) names.emplace_back(n);
  return names;
}

QuantizePlan plan_quantization(const GgufMetadata& metadata, std::span<const PlanInputTensor> tensors,
                               const QuantizePlanOptions& options) {
  const Target target = parse_target(options.type);
  check_overrides(options);
  const ModelFacts model = read_model_facts(metadata);

  QuantizePlan plan;
  plan.preset = target.preset.has_value();
  plan.architecture_known = model.known;
  plan.file_type = static_cast<std::uint32_t>(target.ftype);
  plan.tensors.resize(tensors.size());
  // The rules' counters advance in llama-quantize's order, not the file's; the plan keeps the file's.
  Planner planner(options, target, model, tensors);
  for (std::size_t i : llama_visit_order(tensors)) plan.tensors[i] = planner.plan(tensors[i]);
  check_refusals(plan, tensors, options, target.ftype);
  return plan;
}

}  // namespace onnxq
