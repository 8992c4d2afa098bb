// What each ISA exports for quantizing: per block format, a kernel with the signature and the bytes of
// the scalar reference (quantize/kernels.hpp). SIMD lanes are blocks, not values within a block: each
// lane runs its block's scalar sequence, so the bytes stay ggml's. These files are compiled with
// -ffp-contract=off on every ISA (lib/CMakeLists.txt). Only the dispatch point reads the tables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace onnxq::simd {

using QuantizeRowsFn = void (*)(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row,
                                const float* importance);

// Whether all n values are finite (quantize_rows refuses NaN and infinities before a kernel runs).
using FiniteCheckFn = bool (*)(const float* x, std::size_t n);

struct QuantizeKernel {
  std::uint16_t format_index;  // BlockFormat::index of the format written
  QuantizeRowsFn quantize;
  // Whether the kernel checks every value itself, in the pass that quantizes it, so that
  // quantize_rows skips its own pass over the rows: on a NaN or an infinity it throws NonFiniteInput,
  // having read only its rows and written only their output (unspecified bytes, as on any error).
  bool checks_finite = false;
};

// Thrown by a kernel whose checks_finite is true when its rows hold a NaN or an infinity; quantize_rows
// then finds the first one and names it.
struct NonFiniteInput {};

// The families with quantizing kernels: each ISA defines <family>_quantizers() in
// lib/src/simd/<isa>/quantize_<family>.cpp; the ISA's row (decode/isa_registry.cpp) adds them all.
#define ONNXQ_QUANTIZE_FAMILIES(X) X(legacy) X(kquant) X(iq4) X(lowbit) X(fp4)

#define ONNXQ_DECLARE_QUANTIZE_FAMILY(family) std::span<const QuantizeKernel> family##_quantizers();
#define ONNXQ_DECLARE_ISA_QUANTIZERS(ns)                 \
  namespace ns {                                         \
  ONNXQ_QUANTIZE_FAMILIES(ONNXQ_DECLARE_QUANTIZE_FAMILY) \
  bool all_finite(const float* x, std::size_t n);        \
  }
ONNXQ_DECLARE_ISA_QUANTIZERS(avx2)
ONNXQ_DECLARE_ISA_QUANTIZERS(avx512)
ONNXQ_DECLARE_ISA_QUANTIZERS(neon)
#undef ONNXQ_DECLARE_ISA_QUANTIZERS
#undef ONNXQ_DECLARE_QUANTIZE_FAMILY

}  // namespace onnxq::simd
