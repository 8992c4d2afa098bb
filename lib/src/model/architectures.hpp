// The architecture table: what llama.cpp's loader decides per architecture, in code rather than in
// the file's metadata, about which layers attend over a sliding window and which keep a recurrent
// state (llama_model::load_hparams, llm_arch_is_recurrent / llm_arch_is_hybrid, create_memory).
// An architecture that is not listed attends over the full context in every layer.
#pragma once

#include <cstdint>
#include <string_view>

#include "onnxq/model/model_summary.hpp"

namespace onnxq::model_detail {

enum class LayerMix : std::uint8_t {
  Attention,                // every layer attends
  NoCache,                  // an encoder: llama.cpp creates no KV cache at all
  Recurrent,                // every layer is recurrent (Mamba, RWKV): no KV cache
  RecurrentWhereNoKvHeads,  // a layer whose head_count_kv is 0 is recurrent, the others attend
  RecurrentWhereNoKvNoFfn,  // ... and whose feed_forward_length is 0 too (nemotron_h's separate MLP layers)
  AttentionAndRecurrent,    // every layer does both (falcon-h1)
  RecurrentBetweenFull,     // every full_attention_interval-th layer attends, the others are recurrent
};

// When the architecture's sliding window applies.
enum class WindowCondition : std::uint8_t {
  Always,
  UnlessKeyIsZero,    // llama4: a sliding_window key of 0 turns the chunked attention off
  OnlyIfKeyPositive,  // smallthinker: only a sliding_window key above 0 turns it on
};

struct ArchitectureRow {
  std::string_view name;  // general.architecture
  LayerMix mix = LayerMix::Attention;
  SlidingWindowKind window = SlidingWindowKind::None;
  std::uint32_t swa_period = 0;      // llama.cpp's set_swa_pattern(n): of every n layers all but one use the window
  bool dense_first = false;          // ... the full-attention one is the first of each n, not the last
  std::uint32_t default_window = 0;  // the window when the file has no <arch>.attention.sliding_window
  std::uint32_t fixed_window = 0;    // a window llama.cpp sets whatever the file says
  WindowCondition condition = WindowCondition::Always;
};

// nullptr for an architecture not in the table.
const ArchitectureRow* find_architecture(std::string_view name);

}  // namespace onnxq::model_detail
