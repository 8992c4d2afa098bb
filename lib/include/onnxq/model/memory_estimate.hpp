// The memory llama.cpp needs to run a model: the weights, in RAM or offloaded to the GPU layer by
// layer as llama.cpp places them; the K and V caches as llama.cpp allocates them (per layer, cells
// x n_embd_k_gqa elements of the cache type; a window of cells for sliding-window layers; none for
// recurrent layers, which keep a recurrent state instead); and an approximate compute buffer.
// Reads only the model's header (metadata and tensor descriptors), so a remote or split model
// costs no more than a local one.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "onnxq/formats/format.hpp"
#include "onnxq/gguf/model.hpp"
#include "onnxq/model/model_summary.hpp"

namespace onnxq {

struct EstimateOptions {
  std::uint64_t context = 4096;         // llama.cpp's -c: tokens of context (rounded up to 256 cells)
  const BlockFormat* k_type = nullptr;  // --cache-type-k; nullptr: f16
  const BlockFormat* v_type = nullptr;  // --cache-type-v; nullptr: f16
  std::int64_t gpu_layers = -1;         // -ngl: layers offloaded, counted from the last; < 0: all and the output layer
  std::uint64_t batch = 2048;           // -b: logical batch
  std::uint64_t ubatch = 512;           // -ub: physical batch (micro-batch)
};

// Bytes in RAM (CPU buffers, the mapped file) and on the GPU.
struct MemorySplit {
  std::uint64_t ram = 0;
  std::uint64_t vram = 0;
  std::uint64_t total() const { return ram + vram; }
  void add(bool on_gpu, std::uint64_t bytes) { (on_gpu ? vram : ram) += bytes; }
  MemorySplit& operator+=(const MemorySplit& o) {
    ram += o.ram;
    vram += o.vram;
    return *this;
  }
};

struct LayerMemory {
  bool offloaded = false;
  std::uint64_t cells = 0;  // KV cells of this layer's cache (0: no KV cache)
  std::uint64_t weights = 0;
  std::uint64_t k_cache = 0;
  std::uint64_t v_cache = 0;
  std::uint64_t recurrent_state = 0;
};

struct MemoryEstimate {
  ModelSummary model;           // what the estimate was made from
  std::uint64_t context = 0;    // as asked
  std::uint64_t cells = 0;      // KV cells of a full-context layer: context rounded up to 256
  std::uint64_t swa_cells = 0;  // KV cells of a sliding-window layer (0 without one)
  std::uint64_t batch = 0;
  std::uint64_t ubatch = 0;  // min(ubatch, batch), as llama.cpp clamps it
  const BlockFormat* k_type = nullptr;
  const BlockFormat* v_type = nullptr;
  std::uint64_t layer_count = 0;
  std::uint64_t offloaded_layers = 0;
  bool output_offloaded = false;

  MemorySplit input_weights;   // token embeddings (and other input tensors): always on the CPU
  MemorySplit layer_weights;   // blk.N tensors
  MemorySplit output_weights;  // the output layer's tensors (with a copy of the embeddings when they are tied)
  MemorySplit k_cache;
  MemorySplit v_cache;
  MemorySplit recurrent_state;
  MemorySplit compute;  // approximate (see estimate_memory)

  std::vector<LayerMemory> layers;
  std::vector<std::string> notes;  // the estimate's assumptions, one line each (the model's own are in model.notes)

  MemorySplit weights() const;
  MemorySplit total() const;
};

// The cache types llama.cpp accepts for --cache-type-k/-v: f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1.
std::span<const std::string_view> kv_cache_type_names();
// nullptr when `name` is not one of them ("q8_0", "gguf:q8_0" and "Q8_0" are the same).
const BlockFormat* find_kv_cache_type(std::string_view name);
// llama.cpp's -ngl as text: a layer count (0 or more), or "all" and -1 for every layer and the output
// layer (-1 in EstimateOptions); nullopt for any other text.
std::optional<std::int64_t> parse_gpu_layers(std::string_view text);

// The compute buffer is an approximation of what ggml's graph allocator reserves for one
// micro-batch of T = min(ubatch, cells) tokens with flash attention, in f32:
//   on the device of the output layer   4 * T * (n_vocab + n_embd)            (the logits)
//   on a device that runs layers        4 * T * (2 * n_embd + 3 * n_ff_max)   (residual, FFN gate/up/act)
// where n_ff_max is the largest feed_forward_length, or expert_used_count * expert_feed_forward_length
// when that is larger; a device that does both gets the larger of the two.
// Throws Error(InvalidArgument) for a context or batch of 0, and for a quantized cache type whose
// blocks do not divide a layer's K or V row.
MemoryEstimate estimate_memory(const GgufModel& model, const EstimateOptions& options);

// How a layer keeps its context, as `estimate` shows it: "full", "sliding window", "shared KV",
// "recurrent", "recurrent+attention" or "none".
std::string_view layer_attention_name(const LayerAttention& attention);

// The estimate as one JSON object (2-space indent, no final newline): exact byte counts, RAM, VRAM
// and both per row, every layer, the notes; `file` names the model. `onnxq estimate --json` prints it.
std::string memory_estimate_json(const MemoryEstimate& estimate, std::string_view file);

}  // namespace onnxq
