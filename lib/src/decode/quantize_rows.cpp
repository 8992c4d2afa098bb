// The quantizing driver, beside decode_blocks at the dispatch point: checks a request, then hands runs
// of whole rows to the active path's kernel or the scalar reference (quantize/kernels.hpp) on the
// library's threads. Rows are independent in every format (an importance matrix weighs columns, the
// same for each row), so the bytes do not depend on the thread count.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "decode/dispatch.hpp"
#include "formats/format_rows.hpp"
#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/core/half.hpp"
#include "onnxq/core/parallel.hpp"
#include "onnxq/decode/quantize_rows.hpp"
#include "quantize/kernels.hpp"

namespace onnxq {
namespace {

using formats::FormatId;
using QuantizeFn = void (*)(const float*, std::uint8_t*, std::size_t, std::size_t, const float*);

constexpr std::array kKernels = {
#define ONNXQ_BLOCK_FORMAT(id, ...) quantize::quantize_##id,
#include "formats/format_rows.def"
};
static_assert(kKernels.size() == formats::kBlockFormatCount);

bool is(const BlockFormat& format, FormatId id) { return format.index == static_cast<std::uint16_t>(id); }

std::string format_name(const BlockFormat& format) { return std::string(format.gguf_name); }

// Whether every value is finite: no exponent field is all ones. Branch-free, so that the compiler
// vectorizes it; the SIMD paths have their own (decode::finite_check).
bool all_finite(const float* row, std::size_t n) {
  std::uint32_t any_special = 0;
  for (std::uint64_t c = 0; c < n; ++c) {
    std::uint32_t bits;
    std::memcpy(&bits, row + c, sizeof bits);
    any_special |= (bits & 0x7F800000u) == 0x7F800000u;
  }
  return any_special == 0;
}

// Refuses a row with a NaN or an infinity, naming the first: ggml would write garbage for it, or abort.
void require_finite_row(simd::FiniteCheckFn finite, const float* row, std::uint64_t n, std::uint64_t row_index) {
  if (finite(row, n)) return;
  for (std::uint64_t c = 0; c < n; ++c) {
    if (!std::isfinite(row[c])) {
      invalid_input("row " + std::to_string(row_index) + ", column " + std::to_string(c) + ": the value is " +
                    (std::isnan(row[c]) ? "NaN" : "infinite") + "; only finite values can be quantized");
    }
  }
}

void check_request(const QuantizeRequest& r) {
  if (r.format == nullptr || !r.format->is_block_format())
    invalid_argument("quantize: the target must be a block format, not " +
                     (r.format ? format_name(*r.format) : std::string("nothing")));
  const BlockFormat& f = *r.format;
  if (r.src_dtype != DType::Float && r.src_dtype != DType::Float16 && r.src_dtype != DType::BFloat16)
    invalid_argument("quantize: the input must be float32, float16 or bfloat16");
  if (r.n_per_row == 0 || r.n_per_row % f.block_elements != 0)
    invalid_argument("quantize: a row of " + std::to_string(r.n_per_row) + " values is not a whole number of " +
                     format_name(f) + " blocks (" + std::to_string(f.block_elements) + " values each)");
  if (!r.importance.empty() && r.importance.size() != r.n_per_row)
    invalid_argument("quantize: the importance matrix has " + std::to_string(r.importance.size()) +
                     " values; the rows have " + std::to_string(r.n_per_row));
  for (std::size_t c = 0; c < r.importance.size(); ++c)
    if (!std::isfinite(r.importance[c]))
      invalid_argument("quantize: importance value " + std::to_string(c) + " is not finite");
  if (r.importance.empty() && quantize_requires_importance(f))
    invalid_argument("quantize: " + format_name(f) + " needs an importance matrix (ggml refuses it without one)");
  if (r.rows != 0 && (r.src == nullptr || r.dst == nullptr)) invalid_argument("quantize: no input or output buffer");
  if (!checked_mul(r.rows, r.n_per_row)) invalid_argument("quantize: rows times row length overflows");
}

// Float32 rows: the source itself when it is float32, else widened into the thread's scratch (exact:
// every float16 and bfloat16 value is a float32 value).
const float* float_rows(const QuantizeRequest& r, std::uint64_t first_row, std::uint64_t count,
                        std::vector<float>& scratch) {
  const std::uint64_t first = first_row * r.n_per_row, n = count * r.n_per_row;
  if (r.src_dtype == DType::Float) return static_cast<const float*>(r.src) + first;
  scratch.resize(n);
  const auto* h = static_cast<const std::uint16_t*>(r.src) + first;
  if (r.src_dtype == DType::Float16)
    for (std::uint64_t i = 0; i < n; ++i) scratch[i] = half_to_float(h[i]);
  else
    for (std::uint64_t i = 0; i < n; ++i) scratch[i] = bf16_to_float(h[i]);
  return scratch.data();
}

}  // namespace

bool quantize_requires_importance(const BlockFormat& format) {
  return is(format, FormatId::iq2_xxs) || is(format, FormatId::iq2_xs) || is(format, FormatId::iq1_s);
}

bool quantize_uses_importance(const BlockFormat& format) {
  for (FormatId id : {FormatId::q8_0, FormatId::q8_1, FormatId::q8_k, FormatId::q1_0, FormatId::q2_0, FormatId::tq1_0,
                      FormatId::tq2_0, FormatId::mxfp4, FormatId::nvfp4})
    if (is(format, id)) return false;
  return format.is_block_format();
}

std::uint64_t quantized_row_bytes(const BlockFormat& format, std::uint64_t n_per_row) {
  return n_per_row / format.block_elements * format.block_bytes;
}

void quantize_rows(const QuantizeRequest& r, int threads) {
  check_request(r);
  if (r.rows == 0) return;
  // The active SIMD path's kernel where it has one (the same bytes, tests/unit/quantize/paths_test.cpp).
  const simd::QuantizeKernel* simd = decode::quantize_kernel(*r.format);
  const QuantizeFn kernel = simd ? simd->quantize : kKernels[r.format->index];
  const bool kernel_checks_finite = simd && simd->checks_finite;
  const std::uint64_t row_bytes = quantized_row_bytes(*r.format, r.n_per_row);
  const float* importance = r.importance.empty() ? nullptr : r.importance.data();
  const simd::FiniteCheckFn simd_finite = decode::finite_check();
  const simd::FiniteCheckFn finite = simd_finite ? simd_finite : &all_finite;
  // Runs of whole rows worth about one chunk of values; a row longer than that is a run alone.
  const std::uint64_t rows_per_run = std::max<std::uint64_t>(1, kChunkElements / r.n_per_row);
  const std::uint64_t runs = (r.rows + rows_per_run - 1) / rows_per_run;
  const unsigned workers = resolve_threads(threads);
  std::vector<std::vector<float>> scratch(std::min<std::uint64_t>(workers, runs));
  parallel_chunks(workers, runs, [&](unsigned worker, std::uint64_t run) {
    const std::uint64_t first = run * rows_per_run, count = std::min(rows_per_run, r.rows - first);
    const float* x = float_rows(r, first, count, scratch[worker]);
    auto require_finite_rows = [&] {
      for (std::uint64_t i = 0; i < count; ++i)
        require_finite_row(finite, x + i * r.n_per_row, r.n_per_row, r.first_row + first + i);
    };
    // A kernel that checks the values itself reads them once; the others after this pass.
    if (!kernel_checks_finite) require_finite_rows();
    try {
      kernel(x, static_cast<std::uint8_t*>(r.dst) + first * row_bytes, count, r.n_per_row, importance);
    } catch (const quantize::RowFailure& failure) {
      invalid_input("row " + std::to_string(r.first_row + first + failure.row) + ": " + failure.what());
    } catch (const simd::NonFiniteInput&) {
      require_finite_rows();
      throw std::logic_error("quantize: the " + format_name(*r.format) + " kernel saw a value that is not finite in " +
                             "rows " + std::to_string(r.first_row + first) + " to " +
                             std::to_string(r.first_row + first + count - 1) + ", which hold none");
    }
  });
}

}  // namespace onnxq
