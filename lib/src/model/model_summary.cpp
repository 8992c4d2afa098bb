#include "onnxq/model/model_summary.hpp"

#include <algorithm>
#include <charconv>

#include "architectures.hpp"
#include "metadata_reader.hpp"
#include "onnxq/core/checked.hpp"
#include "onnxq/model/file_type.hpp"

namespace onnxq {

using model_detail::ArchitectureRow;
using model_detail::LayerMix;
using model_detail::MetadataReader;
using model_detail::WindowCondition;

bool LayerValues::uniform() const {
  return std::adjacent_find(values.begin(), values.end(), std::not_equal_to<>()) == values.end();
}
std::uint64_t LayerValues::min() const { return values.empty() ? 0 : *std::min_element(values.begin(), values.end()); }
std::uint64_t LayerValues::max() const { return values.empty() ? 0 : *std::max_element(values.begin(), values.end()); }

std::string_view sliding_window_kind_name(SlidingWindowKind kind) {
  switch (kind) {
    case SlidingWindowKind::None: return "none";
    case SlidingWindowKind::Standard: return "standard";
    case SlidingWindowKind::Chunked: return "chunked";
    case SlidingWindowKind::Symmetric: return "symmetric";
  }
  return "none";
}

std::string_view recurrent_state_kind_name(RecurrentStateKind kind) {
  switch (kind) {
    case RecurrentStateKind::None: return "none";
    case RecurrentStateKind::Ssm: return "ssm";
    case RecurrentStateKind::Wkv: return "wkv";
    case RecurrentStateKind::ShortConv: return "shortconv";
  }
  return "none";
}

std::uint64_t ModelSummary::sliding_window_layers() const {
  return static_cast<std::uint64_t>(
      std::count_if(layers.begin(), layers.end(), [](auto& l) { return l.sliding_window; }));
}

std::uint64_t ModelSummary::recurrent_layers() const {
  return static_cast<std::uint64_t>(std::count_if(layers.begin(), layers.end(), [](auto& l) { return l.recurrent; }));
}

std::optional<std::uint64_t> tensor_layer(std::string_view name) {
  for (std::string_view prefix : {"blk.", "enc.blk.", "dec.blk."}) {
    if (!name.starts_with(prefix)) continue;
    const std::string_view rest = name.substr(prefix.size());
    std::uint64_t layer = 0;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), layer);
    if (ec != std::errc() || end == rest.data() || end == rest.data() + rest.size() || *end != '.') return std::nullopt;
    return layer;
  }
  return std::nullopt;
}

namespace {

class Summarizer {
 public:
  explicit Summarizer(const GgufModel& model) : model_(model), md_(model, s_.notes) {}

  ModelSummary run() {
    general();
    totals();
    if (s_.architecture.empty())
      s_.notes.push_back("no general.architecture: the <arch>.* hyperparameters cannot be read");
    else
      hyperparameters();
    layer_count();
    if (!s_.architecture.empty() && !s_.layers.empty()) {
      head_sizes();
      layer_mix();
      sliding_window();
      recurrent_state();
    }
    return std::move(s_);
  }

 private:
  std::string key(std::string_view name) const { return s_.architecture + "." + std::string(name); }

  void general() {
    s_.architecture = md_.text("general.architecture").value_or("");
    s_.name = md_.text("general.name");
    s_.type = md_.text("general.type");
    s_.size_label = md_.text("general.size_label");
    s_.quantization_version = md_.count("general.quantization_version");
    if (const auto ft = md_.count("general.file_type")) {
      if (*ft > UINT32_MAX)
        md_.note("general.file_type " + std::to_string(*ft) + " is out of range; ignored");
      else
        s_.file_type = static_cast<std::uint32_t>(*ft);
    } else if (!model_.tensors().empty()) {
      s_.file_type = guess_llama_file_type(model_.tensors());
      s_.file_type_guessed = true;
    }
  }

  void totals() {
    for (const TensorInfo& t : model_.tensors()) {
      s_.parameters += t.element_count;
      s_.tensor_bytes += t.byte_size;
    }
    if (s_.parameters)
      s_.bits_per_weight = 8.0 * static_cast<double>(s_.tensor_bytes) / static_cast<double>(s_.parameters);
  }

  void hyperparameters() {
    s_.context_length = md_.count(key("context_length"));
    s_.embedding_length = md_.count(key("embedding_length"));
    s_.block_count = md_.count(key("block_count"));
    s_.vocab_size = md_.count(key("vocab_size"));
    if (!s_.vocab_size) s_.vocab_size = md_.array_size("tokenizer.ggml.tokens");
    s_.key_length = md_.count(key("attention.key_length"));
    s_.value_length = md_.count(key("attention.value_length"));
    s_.expert_count = md_.count(key("expert_count"));
    s_.expert_used_count = md_.count(key("expert_used_count"));
    s_.expert_shared_count = md_.count(key("expert_shared_count"));
    s_.expert_feed_forward_length = md_.count(key("expert_feed_forward_length"));
    s_.rope.dimension_count = md_.count(key("rope.dimension_count"));
    s_.rope.freq_base = md_.number(key("rope.freq_base"));
    s_.rope.scaling_type = md_.text(key("rope.scaling.type"));
    s_.rope.scaling_factor = md_.number(key("rope.scaling.factor"));
    if (!s_.rope.scaling_factor) s_.rope.scaling_factor = md_.number(key("rope.scale_linear"));
    s_.rope.original_context_length = md_.count(key("rope.scaling.original_context_length"));
  }

  // The layer count: block_count, else one more than the highest blk.N tensor.
  void layer_count() {
    std::uint64_t n = 0;
    if (s_.block_count) {
      n = *s_.block_count;
    } else {
      std::optional<std::uint64_t> highest;
      for (const TensorInfo& t : model_.tensors())
        if (const auto l = tensor_layer(t.name)) highest = std::max(highest.value_or(0), *l);
      if (!highest) return;
      n = *highest + 1;
      if (!s_.architecture.empty())
        md_.note("no " + key("block_count") + ": " + std::to_string(n) + " layers counted from the blk.N tensors");
    }
    if (n > model_detail::kMaxLayers) {
      md_.note("block_count " + std::to_string(n) + " is implausible (more than " +
               std::to_string(model_detail::kMaxLayers) + "); no per-layer view");
      return;
    }
    s_.layers.resize(n);
    if (s_.architecture.empty()) return;
    s_.head_count = to_values(md_.per_layer(key("attention.head_count"), n));
    s_.head_count_kv = to_values(md_.per_layer(key("attention.head_count_kv"), n));
    s_.feed_forward_length = to_values(md_.per_layer(key("feed_forward_length"), n));
  }

  static std::optional<LayerValues> to_values(std::optional<MetadataReader::LayerArray> a) {
    if (!a) return std::nullopt;
    return LayerValues{std::move(a->values), a->per_layer};
  }

  // llama.cpp: n_embd_head_k = n_embd / n_head(0) unless key_length says otherwise; a model whose
  // first layer has no heads is "non-transformer" and gets 0.
  void head_sizes() {
    const std::uint64_t heads0 = s_.head_count ? s_.head_count->at(0) : 0;
    if (heads0 > 0) {
      const std::optional<std::uint64_t> per_head =
          s_.embedding_length ? std::optional(*s_.embedding_length / heads0) : std::nullopt;
      s_.head_dim_k = s_.key_length.value_or(per_head.value_or(0));
      s_.head_dim_v = s_.value_length.value_or(per_head.value_or(0));
      if ((!s_.key_length || !s_.value_length) && !per_head)
        md_.note("no " + key("embedding_length") + " to derive the head size from");
    }
    const auto k_mla = md_.count(key("attention.key_length_mla"));
    const auto v_mla = md_.count(key("attention.value_length_mla"));
    s_.mla = k_mla.value_or(0) > 0 && v_mla.value_or(0) > 0;
    for (std::size_t il = 0; il < s_.layers.size(); ++il)
      s_.layers[il].kv_heads = s_.head_count_kv ? s_.head_count_kv->at(il) : s_.head_count ? s_.head_count->at(il) : 0;
  }

  void layer_mix() {
    row_ = model_detail::find_architecture(s_.architecture);
    const LayerMix mix = row_ ? row_->mix : LayerMix::Attention;
    std::uint64_t interval = 4;
    if (mix == LayerMix::RecurrentBetweenFull) {
      interval = md_.count(key("full_attention_interval")).value_or(4);
      if (interval == 0) {
        md_.note(key("full_attention_interval") + " is 0; read as 4");
        interval = 4;
      }
    }
    s_.has_kv_cache = mix != LayerMix::NoCache && mix != LayerMix::Recurrent;
    for (std::size_t il = 0; il < s_.layers.size(); ++il) {
      LayerAttention& l = s_.layers[il];
      switch (mix) {
        case LayerMix::Attention:
        case LayerMix::NoCache: break;
        case LayerMix::Recurrent:
        case LayerMix::AttentionAndRecurrent: l.recurrent = true; break;
        case LayerMix::RecurrentWhereNoKvHeads: l.recurrent = l.kv_heads == 0; break;
        case LayerMix::RecurrentWhereNoKvNoFfn:
          l.recurrent = l.kv_heads == 0 && (!s_.feed_forward_length || s_.feed_forward_length->at(il) == 0);
          break;
        case LayerMix::RecurrentBetweenFull: l.recurrent = (il + 1) % interval != 0; break;
      }
    }
    if (const auto shared = md_.count(key("attention.shared_kv_layers")); shared && *shared > 0) {
      if (*shared >= s_.layers.size()) {
        md_.note(key("attention.shared_kv_layers") + " is not below the layer count; ignored");
      } else {
        for (std::size_t il = s_.layers.size() - *shared; il < s_.layers.size(); ++il) s_.layers[il].shares_kv = true;
      }
    }
    // llama.cpp's cache filters: hybrids keep attention layers in the KV cache and recurrent ones in
    // the recurrent memory; a layer without heads (or with a head size of 0) gets zero-size tensors.
    const bool attends_too = mix == LayerMix::AttentionAndRecurrent;
    for (LayerAttention& l : s_.layers)
      l.kv_cache =
          s_.has_kv_cache && l.kv_heads > 0 && s_.head_dim_k > 0 && !l.shares_kv && (!l.recurrent || attends_too);
    if (s_.has_kv_cache && !s_.head_count) md_.note("no " + key("attention.head_count") + ": no layer has a KV cache");
  }

  void sliding_window() {
    const auto window_key = md_.count(key("attention.sliding_window"));
    const std::string pattern_key = key("attention.sliding_window_pattern");
    const GgufValue* pattern = md_.find(pattern_key);
    std::optional<std::uint64_t> period;
    std::optional<std::vector<bool>> flags;
    if (pattern && pattern->type() == GgufType::Array)
      flags = md_.layer_flags(pattern_key, s_.layers.size());
    else if (pattern)
      period = md_.count(pattern_key);

    SlidingWindowKind kind = SlidingWindowKind::None;
    std::uint64_t window = 0;
    bool dense_first = false;
    if (row_ && row_->window != SlidingWindowKind::None) {
      bool enabled = true;
      if (row_->condition == WindowCondition::UnlessKeyIsZero) enabled = !(window_key && *window_key == 0);
      if (row_->condition == WindowCondition::OnlyIfKeyPositive) enabled = window_key.value_or(0) > 0;
      if (!enabled) return;
      window = row_->fixed_window ? row_->fixed_window : window_key.value_or(row_->default_window);
      if (window == 0) {
        md_.note("no " + key("attention.sliding_window") + ": the sliding-window layers are counted at full context");
        return;
      }
      kind = row_->window;
      if (!period) period = row_->swa_period;
      dense_first = row_->dense_first;
    } else if (window_key.value_or(0) > 0 && (period || flags)) {
      kind = SlidingWindowKind::Standard;  // llama.cpp's default for architectures that name their pattern
      window = *window_key;
    } else {
      if (window_key.value_or(0) > 0)
        md_.note(
            key("attention.sliding_window") + " is " + std::to_string(*window_key) +
            ", but which layers use it is not known for this architecture: every layer is counted at full context");
      return;
    }
    s_.sliding_window_kind = kind;
    s_.sliding_window = window;
    for (std::size_t il = 0; il < s_.layers.size(); ++il) {
      bool swa;
      if (flags) {
        swa = (*flags)[il];
      } else {
        const std::uint64_t p = *period;  // llama_hparams::set_swa_pattern
        swa = p == 0 || (dense_first ? il % p != 0 : il % p < p - 1);
      }
      s_.layers[il].sliding_window = swa;
    }
  }

  // llama_hparams::n_embd_r / n_embd_s: the f32 values a recurrent layer keeps per sequence.
  void recurrent_state() {
    if (s_.recurrent_layers() == 0) return;
    const std::uint64_t embd = s_.embedding_length.value_or(0);
    const auto wkv = md_.count(key("wkv.head_size"));
    const auto l_cache = md_.count(key("shortconv.l_cache"));
    const auto d_conv = md_.count(key("ssm.conv_kernel"));
    const auto d_inner = md_.count(key("ssm.inner_size"));
    const auto d_state = md_.count(key("ssm.state_size"));
    const std::uint64_t n_group = md_.count(key("ssm.group_count")).value_or(0);
    std::optional<std::uint64_t> r, s;
    if (wkv.value_or(0) > 0) {
      s_.recurrent_state = RecurrentStateKind::Wkv;
      r = checked_mul(md_.count(key("token_shift_count")).value_or(2), embd);
      s = checked_mul(embd, *wkv);
    } else {
      if (l_cache.value_or(0) > 0) {
        s_.recurrent_state = RecurrentStateKind::ShortConv;
        r = checked_mul(embd, *l_cache - 1);
      } else {
        s_.recurrent_state = RecurrentStateKind::Ssm;
        if (!d_conv || !d_inner || !d_state)
          md_.note("recurrent layers without " + key("ssm.conv_kernel") +
                   ", ssm.inner_size or ssm.state_size: " + "their state is counted as 0");
        const auto groups = checked_mul(checked_mul(2, n_group).value_or(UINT64_MAX), d_state.value_or(0));
        const auto width = groups ? checked_add(d_inner.value_or(0), *groups) : std::nullopt;
        r = width ? checked_mul(d_conv.value_or(0) > 0 ? *d_conv - 1 : 0, *width) : std::nullopt;
      }
      s = checked_mul(d_state.value_or(0), d_inner.value_or(0));
    }
    if (!r || !s) {
      md_.note("the recurrent state size overflows 64 bits; counted as 0");
      return;
    }
    s_.recurrent_r = *r;
    s_.recurrent_s = *s;
  }

  const GgufModel& model_;
  ModelSummary s_;
  MetadataReader md_;
  const ArchitectureRow* row_ = nullptr;
};

}  // namespace

ModelSummary summarize_model(const GgufModel& model) { return Summarizer(model).run(); }

}  // namespace onnxq
