// Which type each tensor of a model gets when the model is quantized: one block type for every
// eligible weight ("q4_k"), or one of llama-quantize's presets ("Q4_K_M"), which for the
// architectures llama.cpp knows chooses per tensor exactly as llama.cpp's src/llama-quant.cpp does
// (commit 007dbbf3fd17: llama_tensor_get_type, its ftype table and its fallbacks), and for the others
// follows onnxq's documented architecture-agnostic rule (doc/quantize.md). The user's overrides
// (--tensor-type, --keep) come first. The plan is pure: it reads names, shapes, types and metadata,
// never tensor data, so --dry-run and the real run print the same plan.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "onnxq/formats/format.hpp"
#include "onnxq/gguf/metadata.hpp"

namespace onnxq {

// A tensor as the plan sees it (from a GGUF's tensor infos or a safetensors header).
struct PlanInputTensor {
  std::string name;
  std::vector<std::uint64_t> ne;  // GGUF order: ne[0] is the row length
  std::uint32_t ggml_type = 0;    // its type now (F32, F16, BF16, or a quantized type)
};

// --tensor-type GLOB=TYPE: tensors whose name matches GLOB get TYPE (first match wins).
struct TensorTypeOverride {
  std::string glob;
  std::uint32_t ggml_type = 0;
};

// The format a --tensor-type TYPE names: a block format or a float type (q4_k, Q8_0, f16 ...); null
// for any other name.
const BlockFormat* find_override_type(std::string_view name);

// A ggml type as the plan's reports name it: its GGUF name ("Q4_K"), or "type N" for one onnxq does
// not know.
std::string ggml_type_display_name(std::uint32_t ggml_type);

struct QuantizePlanOptions {
  // A block type name ("q4_k", any case) or a llama-quantize preset ("Q4_K_M", any case). A preset's
  // exact upper-case name means the preset where it also names a block type: "Q8_0", "Q4_K" (llama-
  // quantize's alias of Q4_K_M), "F16" are presets, "q8_0", "q4_K", "f16" block types.
  std::string type;
  std::vector<TensorTypeOverride> tensor_types;
  std::vector<std::string> keep;  // --keep GLOB: the tensor is copied, type and bytes unchanged
  bool allow_requantize = false;  // else an already-quantized tensor that would change is refused
  // Else a tensor is refused where llama-quantize refuses it without one (IQ1_S, IQ1_M, IQ2_XXS,
  // IQ2_XS, IQ2_S, IQ3_XXS, and Q2_K in a Q2_K_S mix, except token_embd and output), and where ggml
  // cannot quantize without one (IQ2_XXS, IQ2_XS, IQ1_S, token_embd and output included).
  bool have_imatrix = false;
};

struct PlannedTensor {
  std::uint32_t from_type = 0;
  std::uint32_t to_type = 0;  // == from_type when copied
  bool copy = false;          // the bytes are copied as they are (kept, 1-D, small, or already the type)
  std::uint64_t bytes_before = 0;
  std::uint64_t bytes_after = 0;
  // One short phrase for --dry-run: "Q4_K_M", "Q4_K_M: attn_v, use_more_bits", "type q8_0",
  // "--tensor-type blk.*=q8_0", "--keep token_embd.*", "kept: 1-D", "kept: a norm",
  // "Q4_K_M; fallback: 576 is not a multiple of 256, q5_0", "Q8_0; already q8_0".
  std::string reason;
};

struct QuantizePlan {
  std::vector<PlannedTensor> tensors;  // one per input tensor, in the input's order
  std::uint32_t file_type = 0;         // general.file_type to write (llama_ftype), a u32
  bool preset = false;                 // options.type named a preset (else a block type)
  bool architecture_known = false;     // llama.cpp's rules applied (else the agnostic rule)
};

// Throws Error(InvalidArgument) with a one-line message naming the culprit: an unknown type or
// preset, an override whose type is unknown, an already-quantized tensor without
// allow_requantize (the first such in the input's order, named), a type that requires an importance
// matrix without one (naming the type and the first tensor), a row length no type fits where
// llama-quantize stops (a type without fallback, e.g. q8_0, on a row that is not a multiple of 32).
// Error(InvalidInput) for a tensor the plan cannot size (a type onnxq does not know, an element
// count that overflows, a row that is not a multiple of its own type's block) and where llama.cpp
// stops on the model (an expert model's ffn tensor without a valid blk.N. layer).
QuantizePlan plan_quantization(const GgufMetadata& metadata, std::span<const PlanInputTensor> tensors,
                               const QuantizePlanOptions& options);

// llama-quantize's preset names that options.type accepts, in its order, aliases included ("Q4_K"
// is Q4_K_M): for --help, completions and messages.
std::vector<std::string> quantize_preset_names();

}  // namespace onnxq
