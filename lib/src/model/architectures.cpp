#include "architectures.hpp"

namespace onnxq::model_detail {
namespace {

using M = LayerMix;
using W = SlidingWindowKind;

constexpr ArchitectureRow kArchitectures[] = {
    // Sliding-window attention on a fixed share of the layers.
    {"gemma2", M::Attention, W::Standard, 2, false, 4096},
    {"gemma3", M::Attention, W::Standard, 6},
    {"gemma3n", M::Attention, W::Standard, 5},
    {"cohere2", M::Attention, W::Standard, 4},
    {"gpt-oss", M::Attention, W::Standard, 2},
    {"llama4", M::Attention, W::Chunked, 4, false, 0, 8192, WindowCondition::UnlessKeyIsZero},
    {"smallthinker", M::Attention, W::Standard, 4, true, 0, 4096, WindowCondition::OnlyIfKeyPositive},
    // Recurrent in every layer.
    {"mamba", M::Recurrent},
    {"mamba2", M::Recurrent},
    {"rwkv6", M::Recurrent},
    {"rwkv6qwen2", M::Recurrent},
    {"rwkv7", M::Recurrent},
    {"arwkv7", M::Recurrent},
    // Hybrids.
    {"jamba", M::RecurrentWhereNoKvHeads},
    {"granitehybrid", M::RecurrentWhereNoKvHeads},
    {"lfm2", M::RecurrentWhereNoKvHeads},
    {"lfm2moe", M::RecurrentWhereNoKvHeads},
    {"plamo2", M::RecurrentWhereNoKvHeads},
    {"nemotron_h", M::RecurrentWhereNoKvNoFfn},
    {"falcon-h1", M::AttentionAndRecurrent},
    {"qwen3next", M::RecurrentBetweenFull},
    {"qwen35", M::RecurrentBetweenFull},
    {"qwen35moe", M::RecurrentBetweenFull},
    // Encoders and diffusion models: no KV cache.
    {"bert", M::NoCache},
    {"modern-bert", M::NoCache},
    {"nomic-bert", M::NoCache},
    {"nomic-bert-moe", M::NoCache},
    {"neo-bert", M::NoCache},
    {"jina-bert-v2", M::NoCache},
    {"wavtokenizer-dec", M::NoCache},
    {"dream", M::NoCache},
    {"llada", M::NoCache},
    {"llada-moe", M::NoCache},
};

}  // namespace

const ArchitectureRow* find_architecture(std::string_view name) {
  for (const ArchitectureRow& row : kArchitectures)
    if (row.name == name) return &row;
  return nullptr;
}

}  // namespace onnxq::model_detail
