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
#include <vector>

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

struct QuantizePlanOptions {
  std::string type;  // a block type name ("q4_k", any case) or a llama-quantize preset ("Q4_K_M")
  std::vector<TensorTypeOverride> tensor_types;
  std::vector<std::string> keep;  // --keep GLOB: the tensor is copied, type and bytes unchanged
  bool allow_requantize = false;  // else an already-quantized tensor that would change is refused
  bool have_imatrix = false;      // else a type that requires one (IQ2_XXS, IQ2_XS, IQ1_S) is refused
};

struct PlannedTensor {
  std::uint32_t from_type = 0;
  std::uint32_t to_type = 0;     // == from_type when copied
  bool copy = false;             // the bytes are copied as they are (kept, 1-D, small, or already the type)
  std::uint64_t bytes_before = 0;
  std::uint64_t bytes_after = 0;
  std::string reason;            // one short phrase: "preset", "--tensor-type blk.*=q8_0", "kept: 1-D", "fallback: 4544 is not a multiple of 256"
};

struct QuantizePlan {
  std::vector<PlannedTensor> tensors;  // one per input tensor, in the input's order
  std::uint32_t file_type = 0;         // general.file_type to write (llama_ftype), a u32
  bool preset = false;                 // options.type named a preset (else a block type)
  bool architecture_known = false;     // llama.cpp's rules applied (else the agnostic rule)
};

// Throws Error(InvalidArgument) with a one-line message naming the culprit: an unknown type or
// preset, an override whose type is unknown, an already-quantized tensor without
// allow_requantize (the first such, by name), a type that requires an importance matrix without
// one (naming the type and the first tensor).
QuantizePlan plan_quantization(const GgufMetadata& metadata, std::span<const PlanInputTensor> tensors,
                               const QuantizePlanOptions& options);

}  // namespace onnxq
