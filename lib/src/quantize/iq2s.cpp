// IQ2_S: ggml's quantize_row_iq2_s_impl (src/ggml-quants.c at commit d99724f2). Each 256-value
// super-block is cut into sixteen 16-value sub-blocks; a sub-block's magnitudes are matched, eight
// at a time, to points of the 1024-point grid of 2-bit levels (value 2l+1, l in 0..2) under a
// per-sub-block scale found by a search over candidate scales; the 8 signs per point are stored
// whole. The float operations below are ggml's, in ggml's order (this file is compiled with
// -ffp-contract=off): that is what makes the bytes equal.
//
// The grid tables are iq2_maps.hpp's kIq2sMaps (ggml's iq2xs_init_impl(GGML_TYPE_IQ2_S)).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "quantize/grid_search.hpp"
#include "quantize/iq2_maps.hpp"
#include "quantize/kernels.hpp"
#include "quantize/rounding.hpp"

namespace onnxq::quantize {
namespace {

constexpr int kSubBlock = 16;
constexpr int kSubBlocks = kSuperBlock / kSubBlock;  // 16
constexpr int kBlockBytes = 82;                      // d, qs[32], signs[32], qh[8], scales[8]

[[noreturn]] void fail(std::size_t row, const char* what) { throw RowFailure(row, what); }

// The shared IQ2_XS / IQ2_S search (grid_search.hpp), with IQ2_S's own refusal.
float search_subblock(const float* xval, const float* weight, const float* waux, float max, std::int8_t* L,
                      std::size_t row) {
  try {
    return search_16(kIq2sMaps, xval, weight, waux, max, L);
  } catch (const Failed&) {
    fail(row, "IQ2_S quantization: no grid point found (squared sums overflow)");
  }
}

void quantize_block(const float* xbl, const float* qwbl, std::uint8_t* out, std::size_t row) {
  std::uint8_t block[kBlockBytes] = {};
  std::uint8_t* const qs = block + 2;        // low 8 bits of the 32 grid indices
  std::uint8_t* const signs = block + 34;    // one sign byte per grid point
  std::uint8_t* const qh = block + 66;       // bits 8-9 of the grid indices, 4 per byte
  std::uint8_t* const scales4 = block + 74;  // two 4-bit sub-block scales per byte
  float scales[kSubBlocks];
  float weight[kSubBlock], waux[kSubBlock], xval[kSubBlock];
  std::int8_t L[kSubBlock];
  std::uint8_t block_signs[2];

  const float sigma2 = 2 * sum_squares(xbl) / kSuperBlock;

  float max_scale = 0;
  for (int ib = 0; ib < kSubBlocks; ++ib) {
    const float* xb = xbl + kSubBlock * ib;
    if (qwbl) {
      const float* qw = qwbl + kSubBlock * ib;
      for (int i = 0; i < kSubBlock; ++i) weight[i] = qw[i] * std::sqrt(sigma2 + xb[i] * xb[i]);
    } else {
      for (int i = 0; i < kSubBlock; ++i) weight[i] = 0.25f * sigma2 + xb[i] * xb[i];
    }
    for (int i = 0; i < kSubBlock; ++i) waux[i] = std::sqrt(weight[i]);
    for (int k = 0; k < 2; ++k) block_signs[k] = split_signs(xb + 8 * k, xval + 8 * k);
    float max = xval[0];
    for (int i = 1; i < kSubBlock; ++i) max = max_of(max, xval[i]);
    std::memset(L, 0, sizeof L);
    if (max < 1e-8f) {  // ggml's GROUP_MAX_EPS_IQ2_S
      scales[ib] = 0;
      continue;
    }
    float scale = search_subblock(xval, weight, waux, max, L, row);
    if (scale < 0) {
      scale = -scale;
      block_signs[0] = static_cast<std::uint8_t>(~block_signs[0]);
      block_signs[1] = static_cast<std::uint8_t>(~block_signs[1]);
    }
    for (int k = 0; k < 2; ++k) {
      const int index = kIq2sMaps.map[key3_of(L + 8 * k)];
      if (index < 0) fail(row, "IQ2_S quantization: point not on the grid");
      const int i8 = 2 * ib + k;
      qs[i8] = static_cast<std::uint8_t>(index & 255);
      qh[i8 / 4] = static_cast<std::uint8_t>(qh[i8 / 4] | ((index >> 8) << (2 * (i8 % 4))));
      signs[i8] = block_signs[k];
    }
    if (!(scale >= 0)) fail(row, "IQ2_S quantization: scale is NaN");
    scales[ib] = scale;
    max_scale = max_of(max_scale, scale);
  }

  if (max_scale) {
    const float d = max_scale / 31;
    detail::store_half(block, d * 0.9875f);  // ggml's fudge factor
    const float id = 1 / d;
    for (int ib = 0; ib < kSubBlocks; ++ib) {
      const int l = odd_level(id, scales[ib], 15);
      scales4[ib / 2] = static_cast<std::uint8_t>(ib % 2 == 0 ? l : (scales4[ib / 2] | (l << 4)));
    }
  }
  // With max_scale == 0 ggml leaves d = +0 but keeps any indices and signs already written.
  std::memcpy(out, block, kBlockBytes);
}

}  // namespace

void quantize_iq2_s(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row,
                    const float* importance) {
  quantize_blocks(quantize_block, kBlockBytes, x, dst, rows, n_per_row, importance);
}

}  // namespace onnxq::quantize
