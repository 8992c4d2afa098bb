// Quantizing: rows of float32 (or float16/bfloat16, widened exactly) to any of the 27 block formats,
// the inverse of decode_blocks. The bytes equal ggml's (ggml_quantize_chunk; quantize_row_q8_1_ref
// and quantize_row_q8_K_ref for Q8_1 and Q8_K) on every CPU and for any thread count: each row is
// quantized alone, by code that follows ggml's arithmetic without fused multiply-adds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "onnxq/core/dtype.hpp"
#include "onnxq/core/tensor.hpp"
#include "onnxq/formats/format.hpp"

namespace onnxq {

// Whether quantizing to `format` needs an importance matrix (ggml_quantize_requires_imatrix:
// IQ2_XXS, IQ2_XS, IQ1_S).
bool quantize_requires_importance(const BlockFormat& format);
// Whether `format` uses an importance matrix at all (Q8_0, Q8_1, Q8_K, Q1_0, Q2_0, TQ1_0, TQ2_0,
// MXFP4 and NVFP4 ignore one).
bool quantize_uses_importance(const BlockFormat& format);

// What quantize_rows reads and writes.
struct QuantizeRequest {
  const BlockFormat* format = nullptr;  // a block format
  DType src_dtype = DType::Float;       // Float, Float16 or BFloat16
  const void* src = nullptr;            // rows * n_per_row values of src_dtype, row-major
  std::uint64_t rows = 0;
  std::uint64_t n_per_row = 0;             // a multiple of the format's block elements
  std::span<const float> importance = {};  // empty, or n_per_row weights (one per column)
  void* dst = nullptr;                     // rows * quantized_row_bytes(format, n_per_row) bytes
  std::uint64_t first_row = 0;             // errors number rows from here (the rows' place in a tensor)
};

// Bytes of one quantized row: n_per_row / block_elements blocks.
std::uint64_t quantized_row_bytes(const BlockFormat& format, std::uint64_t n_per_row);

// Quantizes every row of `request`; threads split the rows (0 = all cores), the bytes do not depend
// on how. Throws Error(InvalidArgument) for a plain type, an unsupported source dtype, a row length
// that is not a multiple of the block, an importance matrix of the wrong length or with a value that
// is not finite, or a format that needs one without it; Error(InvalidInput) for a source value that is
// NaN or infinite (naming its row and column), and for a row ggml's grid search cannot place (it
// aborts there; onnxq names the row). On an error the content of dst is unspecified.
void quantize_rows(const QuantizeRequest& request, int threads = 0);

// A whole tensor's rows (its last dimension), as `quantize --raw` reads them from an array.
// The row length of `rows` after checking that they can be quantized to `format`: float32, float16
// or float64 values, at least one dimension, rows of whole blocks. Throws Error(InvalidInput) naming
// `source`.
std::uint64_t quantize_row_length(const Tensor& rows, const BlockFormat& format, std::string_view source);

// Quantizes every row of `rows` (checked as above) and hands the packed rows to `write` in order, a
// run of rows worth about 16 MiB of input at a time, so memory stays bounded whatever the tensor's
// size. float64 values round to the nearest float32 first. Throws as quantize_rows does, its
// InvalidInput errors naming `source` and numbering rows from the tensor's first.
void quantize_tensor_rows(const Tensor& rows, const BlockFormat& format, std::span<const float> importance, int threads,
                          std::string_view source, const std::function<void(std::span<const std::byte>)>& write);

// One importance weight per column from an array: 1-D, `n_per_row` float32 or float64 values.
// Throws Error(InvalidInput) naming `source`.
std::vector<float> importance_weights(const Tensor& weights, std::uint64_t n_per_row, std::string_view source);

}  // namespace onnxq
