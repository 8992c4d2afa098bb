// IQ3_XXS and IQ3_S: ggml's quantize_row_iq3_xxs_impl (grid of 256 points) and
// quantize_row_iq3_s_impl (grid of 512 points), src/ggml-quants.c at commit d99724f2. Each 256-value
// super-block is cut into eight 32-value sub-blocks; a sub-block's magnitudes are matched, four at
// a time, to grid points of four 3-bit levels (value 2l+1) under a per-sub-block scale found by a
// search over candidate scales; the signs are stored apart. The float operations below are ggml's,
// in ggml's order (this file is compiled with -ffp-contract=off): that is what makes the bytes equal.
//
// The grid tables (iq3_maps.cpp) are generated at development time by scripts/gen_iq3_maps.py.
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "quantize/grid_search.hpp"
#include "quantize/iq3_maps.hpp"
#include "quantize/kernels.hpp"
#include "quantize/rounding.hpp"

namespace onnxq::quantize {
namespace {

constexpr int kSubBlock = 32;
constexpr int kSubBlocks = kSuperBlock / kSubBlock;  // 8
constexpr int kGroups = kSubBlock / 4;               // 4-value grid points per sub-block
constexpr int kTopLevel = 7;                         // levels 0..7 stand for 1, 3, ..., 15

struct Iq3Tables {
  const std::uint16_t* codes;  // grid index -> packed levels
  const std::int16_t* map;     // packed levels -> grid index, or -(neighbour list offset + 1)
  const std::uint16_t* neighbours;
};

constinit const Iq3Tables kXxsTables{kIq3xxsCodes.data(), kIq3xxsMap.data(), kIq3xxsNeighbours.data()};
constinit const Iq3Tables kSTables{kIq3sCodes.data(), kIq3sMap.data(), kIq3sNeighbours.data()};

// ggml's iq3_find_best_neighbour: among the off-grid point's neighbour list, the grid point of the
// smallest weighted squared error at `scale` (first one on ties); its levels go to `levels`.
// Returns -1 where ggml asserts: no error compares below FLT_MAX (overflowed sums).
int best_neighbour(const Iq3Tables& t, int key, const float* xval, const float* weight, float scale,
                   std::int8_t* levels) {
  const std::uint16_t* list = t.neighbours + (-t.map[key] - 1);
  const int count = list[0];
  // scale * q for the 8 values q = 2l+1: the very products ggml forms per neighbour, formed once.
  float scaled[8];
  for (int l = 0; l < 8; ++l) scaled[l] = scale * static_cast<float>(2 * l + 1);
  const float x0 = xval[0], x1 = xval[1], x2 = xval[2], x3 = xval[3];
  const float w0 = weight[0], w1 = weight[1], w2 = weight[2], w3 = weight[3];
  float best_d2 = FLT_MAX;
  int best = -1;
  for (int j = 1; j <= count; ++j) {
    const unsigned code = t.codes[list[j]];
    const float e0 = scaled[code & 7u] - x0;
    const float e1 = scaled[(code >> 3) & 7u] - x1;
    const float e2 = scaled[(code >> 6) & 7u] - x2;
    const float e3 = scaled[(code >> 9) & 7u] - x3;
    // ggml sums from 0 in this order; 0 + a differs from a only in the sign of a zero, which no
    // comparison below can see.
    float d2 = w0 * e0 * e0;
    d2 += w1 * e1 * e1;
    d2 += w2 * e2 * e2;
    d2 += w3 * e3 * e3;
    // Strictly smaller replaces (first on ties; a NaN never does), written to compile branch-free.
    const bool better = d2 < best_d2;
    best_d2 = better ? d2 : best_d2;
    best = better ? static_cast<int>(list[j]) : best;
  }
  if (best < 0) return -1;
  const unsigned code = t.codes[best];
  for (int i = 0; i < 4; ++i) levels[i] = static_cast<std::int8_t>((code >> (3 * i)) & 7u);
  return best;
}

inline int pack_levels(const std::int8_t* l) { return l[0] | (l[1] << 3) | (l[2] << 6) | (l[3] << 9); }

[[noreturn]] void fail(std::size_t row, const char* what) { throw RowFailure(row, what); }

// The two variants differ in a handful of places, each marked where it is used.
struct XxsVariant {
  static constexpr bool kXxs = true;
  static constexpr int kScaleSteps = 15;  // candidate scales (15 + 0.2 * is) / max, is in [-15, 15]
};
struct SVariant {
  static constexpr bool kXxs = false;
  static constexpr int kScaleSteps = 9;
};

// One sub-block: magnitudes `xval` (ggml's xval, after any sign flip), `weight` and its square
// roots `waux`. Writes the levels to L and returns the sub-block scale (ggml's `scale`), or throws.
template <class V>
float search_subblock(const Iq3Tables& t, const float* xval, const float* weight, const float* waux, float max,
                      std::int8_t* L, std::size_t row) {
  std::int8_t Laux[kSubBlock];
  bool on_grid[kGroups];
  bool on_grid_aux[kGroups];
  // Products that every candidate scale repeats: the same floats ggml recomputes each time.
  float wx[kSubBlock];
  for (int i = 0; i < kSubBlock; ++i) wx[i] = weight[i] * xval[i];

  float best = 0;
  float scale = max / (2 * kTopLevel + 1);
  // IQ3_XXS starts "all on the grid", IQ3_S "none on the grid" (forcing its final pass).
  for (int k = 0; k < kGroups; ++k) on_grid[k] = V::kXxs;
  for (int is = -V::kScaleSteps; is <= V::kScaleSteps; ++is) {
    const float id = (static_cast<float>(2 * kTopLevel + 1) + static_cast<float>(is) * 0.2f) / max;
    const float this_scale = 1 / id;
    for (int k = 0; k < kGroups; ++k) {
      std::int8_t* lk = Laux + 4 * k;
      for (int i = 0; i < 4; ++i) {
        lk[i] = static_cast<std::int8_t>(odd_level(id, xval[4 * k + i], kTopLevel));
      }
      const int key = pack_levels(lk);
      on_grid_aux[k] = true;
      if (t.map[key] < 0) {
        on_grid_aux[k] = false;
        if (best_neighbour(t, key, xval + 4 * k, waux + 4 * k, this_scale, lk) < 0) {
          fail(row, "IQ3 quantization: no grid point found (squared sums overflow)");
        }
      }
    }
    const LevelSums sums = level_sums(kSubBlock, wx, weight, Laux);
    if (take_if_better(sums.qx, sums.q2, scale, best)) {
      std::memcpy(L, Laux, kSubBlock);
      for (int k = 0; k < kGroups; ++k) on_grid[k] = on_grid_aux[k];
    }
  }
  int n_off_grid = 0;
  for (int k = 0; k < kGroups; ++k) n_off_grid += on_grid[k] ? 0 : 1;
  if (n_off_grid > 0 && scale > 0) {
    // Requantize at the chosen scale: IQ3_XXS only the off-grid points, IQ3_S every point.
    const float id = 1 / scale;
    for (int k = 0; k < kGroups; ++k) {
      if (V::kXxs && on_grid[k]) continue;
      std::int8_t lk[4];
      for (int i = 0; i < 4; ++i) {
        lk[i] = static_cast<std::int8_t>(odd_level(id, xval[4 * k + i], kTopLevel));
      }
      const int key = pack_levels(lk);
      int index = t.map[key];
      if (index < 0) {
        index = best_neighbour(t, key, xval + 4 * k, waux + 4 * k, scale, L + 4 * k);
        if (index < 0) fail(row, "IQ3 quantization: no grid point found (squared sums overflow)");
      }
      const unsigned code = t.codes[index];
      for (int i = 0; i < 4; ++i) L[4 * k + i] = static_cast<std::int8_t>((code >> (3 * i)) & 7u);
    }
    const LevelSums sums = level_sums(kSubBlock, wx, weight, L);
    if (sums.q2 > 0) scale = sums.qx / sums.q2;
  }
  return scale;
}

inline float block_sigma2(const float* xbl) { return 2 * sum_squares(xbl) / kSuperBlock; }

// One IQ3_XXS super-block into 98 bytes: d, 64 grid indices, 8 words of (4 x 7 sign bits | scale << 28).
void quantize_block_xxs(const float* xbl, const float* qwbl, std::uint8_t* out, std::size_t row) {
  constexpr int kBlockBytes = 98;
  std::uint8_t q3[kBlockBytes - 2] = {};
  std::uint32_t scales_and_signs[kSubBlocks] = {};
  float scales[kSubBlocks];
  float weight[kSubBlock], waux[kSubBlock], xval[kSubBlock];
  std::int8_t L[kSubBlock];
  std::uint8_t block_signs[4];

  float max_scale = 0;
  const float sigma2 = block_sigma2(xbl);
  for (int ib = 0; ib < kSubBlocks; ++ib) {
    const float* xb = xbl + kSubBlock * ib;
    // Only 7 sign bits per 8 values are stored: an even number of negatives (grid_search.hpp).
    const float max = prepare_subblock<kSubBlock, true>(xb, qwbl ? qwbl + kSubBlock * ib : nullptr, sigma2, weight,
                                                        waux, xval, block_signs);
    std::memset(L, 0, sizeof L);
    if (max < 1e-8f) {  // ggml's GROUP_MAX_EPS_IQ3_XXS
      scales[ib] = 0;
      continue;
    }
    float scale = search_subblock<XxsVariant>(kXxsTables, xval, weight, waux, max, L, row);
    if (scale < 0) {
      // Cannot happen with finite sums; ggml flips scale and signs to keep the scale unsigned.
      scale = -scale;
      for (int k = 0; k < 4; ++k) block_signs[k] = static_cast<std::uint8_t>(~block_signs[k] & 127u);
    }
    for (int k = 0; k < kGroups; ++k) {
      const int index = kIq3xxsMap[static_cast<std::size_t>(pack_levels(L + 4 * k))];
      if (index < 0) fail(row, "IQ3_XXS quantization: point not on the grid");
      q3[kGroups * ib + k] = static_cast<std::uint8_t>(index);
    }
    scales_and_signs[ib] = block_signs[0] | (block_signs[1] << 7) | (block_signs[2] << 14) |
                           (static_cast<std::uint32_t>(block_signs[3]) << 21);
    if (!(scale >= 0)) fail(row, "IQ3_XXS quantization: scale is NaN");
    scales[ib] = scale;
    max_scale = max_of(max_scale, scale);
  }

  if (!max_scale) {
    std::memset(out, 0, kBlockBytes);  // d = +0 and all levels, signs and scales zero
    return;
  }
  const float d = max_scale / 31;
  detail::store_half(out, d * 1.0125f);  // ggml's fudge factor
  const float id = 1 / d;
  for (int ib = 0; ib < kSubBlocks; ++ib) {
    const int l = odd_level(id, scales[ib], 15);
    scales_and_signs[ib] |= static_cast<std::uint32_t>(l) << 28;
  }
  for (int ib = 0; ib < kSubBlocks; ++ib) detail::store_u32(q3 + 64 + 4 * ib, scales_and_signs[ib]);
  std::memcpy(out + 2, q3, sizeof q3);
}

// One IQ3_S super-block into 110 bytes: d, qs[64] (low 8 bits of the grid indices), qh[8] (their
// 9th bits), signs[32], scales[4] (two 4-bit sub-block scales per byte).
void quantize_block_s(const float* xbl, const float* qwbl, std::uint8_t* out, std::size_t row) {
  constexpr int kBlockBytes = 110;
  std::uint8_t block[kBlockBytes] = {};
  std::uint8_t* qs = block + 2;
  std::uint8_t* const qh = block + 66;
  std::uint8_t* signs = block + 74;
  std::uint8_t* const packed_scales = block + 106;
  float scales[kSubBlocks];
  float weight[kSubBlock], waux[kSubBlock], xval[kSubBlock];
  std::int8_t L[kSubBlock];
  std::uint8_t block_signs[4];

  float max_scale = 0;
  const float sigma2 = block_sigma2(xbl);
  for (int ib = 0; ib < kSubBlocks; ++ib) {
    const float* xb = xbl + kSubBlock * ib;
    const float max = prepare_subblock<kSubBlock, false>(xb, qwbl ? qwbl + kSubBlock * ib : nullptr, sigma2, weight,
                                                         waux, xval, block_signs);
    std::memset(L, 0, sizeof L);
    if (!max) {
      // ggml skips an all-zero sub-block without advancing its qs and signs cursors, so the
      // following sub-blocks' indices and signs move up; qh and the scales keep their places.
      scales[ib] = 0;
      continue;
    }
    float scale = search_subblock<SVariant>(kSTables, xval, weight, waux, max, L, row);
    if (scale < 0) {
      scale = -scale;
      for (int k = 0; k < 4; ++k) block_signs[k] = static_cast<std::uint8_t>(~block_signs[k]);
    }
    for (int k = 0; k < kGroups; ++k) {
      const int index = kIq3sMap[static_cast<std::size_t>(pack_levels(L + 4 * k))];
      if (index < 0) fail(row, "IQ3_S quantization: point not on the grid");
      qs[k] = static_cast<std::uint8_t>(index & 255);
      const int bit = ib * kGroups + k;
      qh[bit / 8] = static_cast<std::uint8_t>(qh[bit / 8] | ((index >> 8) << (bit % 8)));
    }
    qs += kGroups;
    std::memcpy(signs, block_signs, 4);
    signs += 4;
    if (!(scale >= 0)) fail(row, "IQ3_S quantization: scale is NaN");
    scales[ib] = scale;
    max_scale = max_of(max_scale, scale);
  }

  if (max_scale) {
    const float d = max_scale / 31;
    detail::store_half(block, d * 1.033f);  // ggml's fudge factor
    const float id = 1 / d;
    for (int ib = 0; ib < kSubBlocks; ib += 2) {
      const int l1 = odd_level(id, scales[ib], 15);
      const int l2 = odd_level(id, scales[ib + 1], 15);
      packed_scales[ib / 2] = static_cast<std::uint8_t>(l1 | (l2 << 4));
    }
  }
  // With max_scale == 0 ggml leaves d = +0 but keeps any indices and signs already written.
  std::memcpy(out, block, kBlockBytes);
}

}  // namespace

void quantize_iq3_xxs(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row,
                      const float* importance) {
  quantize_blocks(quantize_block_xxs, 98, x, dst, rows, n_per_row, importance);
}

void quantize_iq3_s(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row,
                    const float* importance) {
  quantize_blocks(quantize_block_s, 110, x, dst, rows, n_per_row, importance);
}

}  // namespace onnxq::quantize
