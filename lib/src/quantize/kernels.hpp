// The scalar reference quantizers, one per block format: the inverse of reference/decoders.hpp.
// Each follows ggml's arithmetic step by step (ggml 0.21.0, commit d99724f2, src/ggml-quants.c),
// so that its bytes equal ggml_quantize_chunk's (quantize_row_q8_1_ref / quantize_row_q8_K_ref for
// the two formats ggml_quantize_chunk does not take). This folder is compiled with -ffp-contract=off:
// no multiply and add may be fused, on any CPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace onnxq::quantize {

// quantize_<id> for each block format row of formats/format_rows.def: `rows` rows of `n_per_row`
// float32 values at `x` (n_per_row a multiple of the format's block elements; every value finite)
// into rows * n_per_row / qk packed blocks at `dst` (no alignment required). `importance` is null
// or n_per_row weights, one per column, used for every row (ggml's imatrix); formats that ignore it
// ignore it. The caller (decode/quantize_rows.cpp) has checked the arguments.
#define ONNXQ_BLOCK_FORMAT(id, ...)                                                              \
  void quantize_##id(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row, \
                     const float* importance);
#include "formats/format_rows.def"

// Thrown by a kernel for a row it cannot quantize where ggml would abort (an IQ grid search that
// finds no grid point once squared sums overflow). `row` counts from the call's first row.
struct RowFailure : std::runtime_error {
  RowFailure(std::size_t row_in_call, const std::string& what) : std::runtime_error(what), row(row_in_call) {}
  std::size_t row;
};

}  // namespace onnxq::quantize
