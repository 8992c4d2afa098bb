// IQ2_XXS and IQ2_XS: ggml's quantize_row_iq2_xxs_impl and quantize_row_iq2_xs_impl (src/ggml-quants.c
// at commit d99724f2). A 256-value super-block is cut into sub-blocks (32 values for IQ2_XXS, 16
// for IQ2_XS); the magnitudes of each group of 8 are matched to a grid point of 8 levels 0..2
// (values 1, 3, 5) under a sub-block scale found by a search over candidate scales, with an even
// number of sign flips per group (the parity is forced by flipping the least important value). An
// off-grid rounding is replaced by the best of its precomputed neighbours (iq2_maps.hpp).
//
// The float operations are ggml's, in ggml's order (this folder is compiled with -ffp-contract=off):
// that is what makes the bytes equal. Where ggml aborts (an assertion, a point "not on grid"),
// which it reaches only once squared sums overflow, we throw RowFailure.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "quantize/grid_search.hpp"
#include "quantize/iq2_maps.hpp"
#include "quantize/kernels.hpp"
#include "quantize/rounding.hpp"
#include "quantize/scale_search.hpp"

namespace onnxq::quantize {
namespace {

constexpr int kMaxQ = 3;  // levels 0..kMaxQ-1 on the grid
constexpr float kGroupMaxEps = 1e-15f;

// The base-3 key of 8 levels; -1 if one is outside 0..2 (ggml would index its map out of range or
// find the point off the grid: an abort, or undefined, either way a row we refuse).
inline int key_of(const std::int8_t* l) {
  int key = 0;
  for (int i = 7; i >= 0; --i) {
    if (l[i] < 0 || l[i] > 2) return -1;
    key = 3 * key + l[i];
  }
  return key;
}

// One IQ2_XXS super-block (66 bytes: d, then 8 x (4 grid indices, 4 x 7 sign bits + 4-bit scale)).
// (No whole-grid fallback here, so the end of the row goes unused.)
void iq2_xxs_block(const float* xbl, const float* qwbl, std::uint8_t* out, const float* /*row_end*/) {
  const IqGridMaps& maps = kIq2xxsMaps;
  float scales[8];
  float weight[32], waux[32], xval[32];
  std::int8_t L[32], Laux[32];
  std::uint8_t block_signs[4];
  std::uint32_t q2[16] = {};
  float max_scale = 0;
  const float sigma2 = sum_squares(xbl) / kSuperBlock;

  for (int ib = 0; ib < 8; ++ib) {
    const float* xb = xbl + 32 * ib;
    const float max = prepare_subblock<32, true>(xb, qwbl + 32 * ib, sigma2, weight, waux, xval, block_signs);
    if (max < kGroupMaxEps) {
      scales[ib] = 0;
      continue;
    }
    float wx[32];  // w * x: the same float in every candidate's sums
    for (int i = 0; i < 32; ++i) wx[i] = weight[i] * xval[i];
    float scale = make_qp_quants(32, kMaxQ + 1, xval, reinterpret_cast<std::uint8_t*>(L), weight);
    const float eff_max = scale * kMaxQ;
    if (eff_max <= 0) {
      scales[ib] = 0;
      continue;
    }
    float best = 0;
    for (int is = -6; is <= 6; ++is) {
      const float id = (2 * kMaxQ - 1 + static_cast<float>(is) * 0.1f) / eff_max;
      const float this_scale = 1 / id;
      for (int k = 0; k < 4; ++k) {
        const int key = round_group(id, xval + 8 * k, Laux + 8 * k);
        if (maps.map[key] < 0) move_to_neighbour(maps, key, xval + 8 * k, waux + 8 * k, this_scale, Laux + 8 * k);
      }
      const LevelSums sums = level_sums(32, wx, weight, Laux);
      if (take_if_better(sums.qx, sums.q2, scale, best)) std::memcpy(L, Laux, 32);
    }
    if (scale > 0) {
      const float id = 1 / scale;
      for (int k = 0; k < 4; ++k) {
        const int key = round_group(id, xval + 8 * k, L + 8 * k);
        if (maps.map[key] < 0) move_to_neighbour(maps, key, xval + 8 * k, waux + 8 * k, scale, L + 8 * k);
      }
      const LevelSums sums = level_sums(32, wx, weight, L);
      if (sums.q2 > 0) scale = sums.qx / sums.q2;
    }
    if (scale < 0) {  // never expected; ggml then flips the scale and every stored sign
      scale = -scale;
      for (int k = 0; k < 4; ++k) block_signs[k] = static_cast<std::uint8_t>(~block_signs[k] & 127);
    }
    for (int k = 0; k < 4; ++k) {
      const int key = key_of(L + 8 * k);
      if (key < 0 || maps.map[key] < 0) throw Failed{};  // ggml: "Oops: found point not on grid"
      q2[2 * ib + 0] |= static_cast<std::uint32_t>(maps.map[key]) << (8 * k);
      q2[2 * ib + 1] |= static_cast<std::uint32_t>(block_signs[k]) << (7 * k);
    }
    if (!(scale >= 0)) throw Failed{};
    scales[ib] = scale;
    max_scale = max_of(max_scale, scale);
  }

  if (max_scale == 0) {
    std::memset(out, 0, 66);  // d = +0 and no indices
    return;
  }
  const float d = max_scale / 31;
  detail::store_half(out, d);
  const float id = 1 / d;
  for (int ib = 0; ib < 8; ++ib) {
    const int l = odd_level(id, scales[ib], 15);
    q2[2 * ib + 1] |= static_cast<std::uint32_t>(l) << 28;
  }
  for (int i = 0; i < 16; ++i) detail::store_u32(out + 2 + 4 * i, q2[i]);
}

// One IQ2_XS super-block (74 bytes: d, 32 x uint16 (9-bit grid index | 7 sign bits << 9), 8 bytes of
// two 4-bit sub-block scales).
void iq2_xs_block(const float* xbl, const float* qwbl, std::uint8_t* out, const float* /*row_end*/) {
  const IqGridMaps& maps = kIq2xsMaps;
  float scales[16];
  float weight[16], waux[16], xval[16];
  std::int8_t L[16];
  std::uint8_t block_signs[2];
  std::uint16_t q2[32] = {};
  float max_scale = 0;
  const float sigma2 = sum_squares(xbl) / kSuperBlock;

  for (int ib = 0; ib < 16; ++ib) {
    const float* xb = xbl + 16 * ib;
    const float max = prepare_subblock<16, true>(xb, qwbl + 16 * ib, sigma2, weight, waux, xval, block_signs);
    std::memset(L, 0, 16);
    if (max < kGroupMaxEps) {
      scales[ib] = 0;
      continue;
    }
    float scale = search_16(maps, xval, weight, waux, max, L);
    if (scale < 0) {
      scale = -scale;
      for (int k = 0; k < 2; ++k) block_signs[k] = static_cast<std::uint8_t>(~block_signs[k] & 127);
    }
    for (int k = 0; k < 2; ++k) {
      const int key = key_of(L + 8 * k);
      if (key < 0 || maps.map[key] < 0) throw Failed{};  // ggml: "Oops: found point not on grid"
      q2[2 * ib + k] = static_cast<std::uint16_t>(maps.map[key] | (block_signs[k] << 9));
    }
    if (!(scale >= 0)) throw Failed{};
    scales[ib] = scale;
    max_scale = max_of(max_scale, scale);
  }

  if (max_scale == 0) {
    std::memset(out, 0, 74);
    return;
  }
  const float d = max_scale / 31;
  detail::store_half(out, d);
  const float id = 1 / d;
  std::uint8_t* sc = out + 2 + 64;
  for (int ib = 0; ib < 16; ++ib) {
    const int l = odd_level(id, scales[ib], 15);
    if (ib % 2 == 0)
      sc[ib / 2] = static_cast<std::uint8_t>(l);
    else
      sc[ib / 2] |= static_cast<std::uint8_t>(l << 4);
  }
  for (int i = 0; i < 32; ++i) detail::store_u16(out + 2 + 2 * i, q2[i]);
}

}  // namespace

// The caller guarantees a non-null importance for these formats (ggml asserts it).
void quantize_iq2_xxs(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row,
                      const float* importance) {
  quantize_rows<iq2_xxs_block, 66>(x, dst, rows, n_per_row, importance, "IQ2_XXS");
}

void quantize_iq2_xs(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row,
                     const float* importance) {
  quantize_rows<iq2_xs_block, 74>(x, dst, rows, n_per_row, importance, "IQ2_XS");
}

}  // namespace onnxq::quantize
