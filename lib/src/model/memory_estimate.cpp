#include "onnxq/model/memory_estimate.hpp"

#include <algorithm>
#include <charconv>

#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"

namespace onnxq {
namespace {

// llama.cpp's kv_cache_types (common/arg.cpp), in its order.
constexpr std::string_view kCacheTypes[] = {"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"};

// llama_context rounds the context up to a multiple of 256 cells (GGML_PAD(n_ctx, 256)).
constexpr std::uint64_t kCellPadding = 256;
// Recurrent states are f32, one per sequence (llama_memory_recurrent with n_seq_max = 1).
constexpr std::uint64_t kStateValueBytes = 4;

std::uint64_t product(std::uint64_t a, std::uint64_t b, const std::string& what) {
  const auto r = checked_mul(a, b);
  if (!r) invalid_input(what + " overflows 64 bits");
  return *r;
}

std::uint64_t sum(std::uint64_t a, std::uint64_t b, const std::string& what) {
  const auto r = checked_add(a, b);
  if (!r) invalid_input(what + " overflows 64 bits");
  return *r;
}

// ggml_row_size: a row of `values` values of `type` is a whole number of its blocks.
std::uint64_t row_bytes(const BlockFormat& type, std::uint64_t values, std::string_view cache, std::size_t layer,
                        std::uint64_t per_head, std::uint64_t heads) {
  if (values % type.block_elements != 0)
    invalid_argument(std::string(cache) + " cache type " + std::string(type.ggml_name) + " stores blocks of " +
                     std::to_string(type.block_elements) + " values, which do not divide layer " +
                     std::to_string(layer) + "'s " + std::string(cache) + " row of " + std::to_string(values) +
                     " values (" + std::to_string(per_head) + " per head x " + std::to_string(heads) + " KV heads)");
  return product(values / type.block_elements, type.block_bytes, std::string(cache) + " cache row");
}

enum class Place { Input, Layer, Output };

// Where llama.cpp's loader puts a tensor: the input layer (always on the CPU), a repeating layer, or
// the output layer (everything else outside the layers: output, output_norm, cls, rope factors).
Place place_of(const TensorInfo& t, std::uint64_t layers) {
  if (const auto layer = tensor_layer(t.name)) return *layer < layers ? Place::Layer : Place::Output;
  if (t.name.starts_with("token_") || t.name.starts_with("position_")) return Place::Input;
  return Place::Output;
}

}  // namespace

std::span<const std::string_view> kv_cache_type_names() { return kCacheTypes; }

std::optional<std::int64_t> parse_gpu_layers(std::string_view text) {
  if (text == "all" || text == "-1") return -1;
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 0) return std::nullopt;
  return n;
}

const BlockFormat* find_kv_cache_type(std::string_view name) {
  const BlockFormat* f = find_format(name);
  if (!f) return nullptr;
  for (std::string_view allowed : kCacheTypes)
    if (find_format(allowed) == f) return f;
  return nullptr;
}

MemorySplit MemoryEstimate::weights() const {
  MemorySplit w = input_weights;
  w += layer_weights;
  w += output_weights;
  return w;
}

MemorySplit MemoryEstimate::total() const {
  MemorySplit t = weights();
  t += k_cache;
  t += v_cache;
  t += recurrent_state;
  t += compute;
  return t;
}

MemoryEstimate estimate_memory(const GgufModel& model, const EstimateOptions& options) {
  if (options.context == 0 || options.context > UINT32_MAX)
    invalid_argument("context must be 1 to " + std::to_string(UINT32_MAX) + " tokens, got " +
                     std::to_string(options.context));
  if (options.batch == 0 || options.ubatch == 0) invalid_argument("batch sizes must be at least 1");

  MemoryEstimate e;
  e.model = summarize_model(model);
  const ModelSummary& s = e.model;
  e.k_type = options.k_type ? options.k_type : find_format("f16");
  e.v_type = options.v_type ? options.v_type : find_format("f16");
  e.context = options.context;
  e.cells = *checked_align_up(options.context, kCellPadding);
  e.batch = options.batch;
  e.ubatch = std::min(options.ubatch, options.batch);

  const std::uint64_t n = s.layers.size();
  e.layer_count = n;
  const std::uint64_t gpu_layers = options.gpu_layers < 0 ? n + 1 : static_cast<std::uint64_t>(options.gpu_layers);
  e.offloaded_layers = std::min(gpu_layers, n);
  e.output_offloaded = gpu_layers > n;  // llama.cpp: the output layer counts as layer n
  e.layers.resize(n);
  for (std::uint64_t il = 0; il < n; ++il) e.layers[il].offloaded = il >= n - e.offloaded_layers;
  if (s.sliding_window) e.swa_cells = std::min(e.cells, sum(*s.sliding_window, e.ubatch, "the sliding window"));

  // Weights, where the loader places them.
  for (const TensorInfo& t : model.tensors()) {
    switch (place_of(t, n)) {
      case Place::Input: e.input_weights.ram += t.byte_size; break;
      case Place::Output: e.output_weights.add(e.output_offloaded, t.byte_size); break;
      case Place::Layer: {
        LayerMemory& layer = e.layers[*tensor_layer(t.name)];
        layer.weights += t.byte_size;
        e.layer_weights.add(layer.offloaded, t.byte_size);
        break;
      }
    }
  }
  std::uint64_t unknown = 0, unknown_bytes = 0;
  for (const TensorInfo& t : model.tensors())
    if (!t.format) {
      ++unknown;
      unknown_bytes += t.byte_size;
    }
  if (unknown)
    e.notes.push_back(std::to_string(unknown) + " tensor(s) of types onnxq does not know are counted at their " +
                      std::to_string(unknown_bytes) + " stored bytes, inferred from the layout (padding included)");
  const TensorInfo* embeddings = model.find_tensor("token_embd.weight");
  if (embeddings && !model.find_tensor("output.weight") && model.find_tensor("output_norm.weight")) {
    // Tied embeddings: the output layer uses token_embd.weight, loaded a second time onto its device.
    // On the CPU that is the same mapped bytes; on the GPU a copy.
    if (e.output_offloaded) {
      e.output_weights.vram += embeddings->byte_size;
      e.notes.push_back("no output.weight: the output layer uses token_embd.weight, copied to the GPU");
    }
  }

  // KV caches and recurrent states, on each layer's device.
  if (s.mla) e.notes.push_back("multi-head latent attention: the K cache holds the compressed latent; no V cache");
  if (!s.has_kv_cache && s.recurrent_layers() == 0 && n > 0)
    e.notes.push_back("llama.cpp keeps no KV cache for " + s.architecture + " (an encoder or diffusion model)");
  const std::uint64_t state_bytes =
      product(sum(s.recurrent_r, s.recurrent_s, "the recurrent state"), kStateValueBytes, "the recurrent state");
  for (std::uint64_t il = 0; il < n; ++il) {
    const LayerAttention& a = s.layers[il];
    LayerMemory& m = e.layers[il];
    if (a.kv_cache) {
      m.cells = a.sliding_window ? e.swa_cells : e.cells;
      const std::string where = "layer " + std::to_string(il) + "'s KV cache";
      const std::uint64_t k_row = product(s.head_dim_k, a.kv_heads, where);
      const std::uint64_t v_row = product(s.head_dim_v, a.kv_heads, where);
      m.k_cache = product(m.cells, row_bytes(*e.k_type, k_row, "K", il, s.head_dim_k, a.kv_heads), where);
      if (!s.mla) m.v_cache = product(m.cells, row_bytes(*e.v_type, v_row, "V", il, s.head_dim_v, a.kv_heads), where);
    }
    if (a.recurrent) m.recurrent_state = state_bytes;
    e.k_cache.add(m.offloaded, m.k_cache);
    e.v_cache.add(m.offloaded, m.v_cache);
    e.recurrent_state.add(m.offloaded, m.recurrent_state);
  }

  // Compute buffers (approximate; the formula is in the header).
  std::uint64_t vocab = s.vocab_size.value_or(0);
  if (!vocab) {
    const TensorInfo* out = model.find_tensor("output.weight");
    if (!out) out = embeddings;
    if (out && out->ne.size() >= 2) vocab = out->ne[1];
  }
  if (!vocab) e.notes.push_back("vocabulary size unknown: the compute buffer leaves out the logits");
  const std::uint64_t embd = s.embedding_length.value_or(0);
  std::uint64_t ffn = s.feed_forward_length ? s.feed_forward_length->max() : 0;
  if (s.expert_used_count && s.expert_feed_forward_length)
    ffn = std::max(ffn, product(*s.expert_used_count, *s.expert_feed_forward_length, "the expert feed-forward size"));
  const std::uint64_t tokens = std::min(e.ubatch, e.cells);
  const std::string what = "the compute buffer";
  const std::uint64_t logits = product(product(4, tokens, what), sum(vocab, embd, what), what);
  const std::uint64_t layer_scratch =
      product(product(4, tokens, what), sum(product(2, embd, what), product(3, ffn, what), what), what);
  const bool cpu_runs_layers = e.offloaded_layers < n;
  const bool gpu_runs_layers = e.offloaded_layers > 0;
  e.compute.ram = std::max(cpu_runs_layers ? layer_scratch : 0, e.output_offloaded ? 0 : logits);
  e.compute.vram = std::max(gpu_runs_layers ? layer_scratch : 0, e.output_offloaded ? logits : 0);
  return e;
}

}  // namespace onnxq
