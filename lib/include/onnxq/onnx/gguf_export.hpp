// A GGUF model as an ONNX graph whose weights stay in the .gguf: each tensor's bytes are an
// initializer stored as external data pointing into its shard file, passed through a
// DequantizePacked node (block formats) or an Identity/Cast node (plain types) to a graph output
// named after the tensor. doc/commands.md#export describes the layout.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "onnxq/gguf/model.hpp"
#include "onnxq/onnx/onnx_io.hpp"

namespace onnxq {

// The dtype an exported tensor has: `float_dtype` (default FLOAT) for block formats; a plain
// float tensor's own type unless `float_dtype` asks for another; integers always their own.
DType onnx_export_dtype(const BlockFormat& format, std::optional<DType> float_dtype);

// The graph for `tensors` (all of `model`'s when empty), as it would be written at `onnx_path`:
// external-data locations are relative to that file's folder. Throws InvalidInput for a
// big-endian or remote model, a shard outside the .onnx's folder, a tensor of an unknown type, or
// names that collide; InvalidArgument for a float_dtype other than FLOAT, FLOAT16 or BFLOAT16.
OnnxModel gguf_onnx_model(const GgufModel& model, std::span<const TensorInfo* const> tensors,
                          const std::string& onnx_path, std::optional<DType> float_dtype = std::nullopt);

// Builds that graph and writes it to `onnx_path` (complete or absent). Returns its size in bytes.
std::uint64_t export_onnx(const GgufModel& model, std::span<const TensorInfo* const> tensors,
                          const std::string& onnx_path, std::optional<DType> float_dtype = std::nullopt);

}  // namespace onnxq
