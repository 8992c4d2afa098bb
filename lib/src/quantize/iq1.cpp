// IQ1_S and IQ1_M: ggml's quantize_row_iq1_s_impl and quantize_row_iq1_m_impl (src/ggml-quants.c at
// commit d99724f2). Each value of a sub-block (32 values for IQ1_S, 16 for IQ1_M) becomes one of
// three levels -1, 0, 1 shifted by +-delta; the best split of the sorted values into the three levels
// is found exhaustively, then each group of 8 levels is moved to the IQ1 grid (2048 points) through
// the precomputed neighbour lists (iq2_maps.hpp).
//
// The float operations are ggml's, in ggml's order (this folder is compiled with -ffp-contract=off):
// that is what makes the bytes equal. Where ggml aborts (an assertion), which it reaches only once
// squared sums overflow, we throw RowFailure; also where its overflow fallback would read past the
// row (best_neighbour2), since its bytes then depend on memory outside the row.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "formats/codebooks.hpp"
#include "quantize/grid_search.hpp"
#include "quantize/iq2_maps.hpp"
#include "quantize/kernels.hpp"
#include "quantize/rounding.hpp"

namespace onnxq::quantize {
namespace {

constexpr float kFltMax = 3.40282347e+38f;

// ggml's iq1_find_best_neighbour2: the neighbour of smallest sum w*(scale*xg[l] - x)^2 (first on
// ties, grid_search.hpp's best_neighbour); writes its levels. When no neighbour scores below FLT_MAX (the sums
// overflowed), ggml scans the whole grid, but with a slip: it subtracts xval[i], i the grid index (0..2047), not the
// coordinate, so it reads the 2048 values from xval on. We do the same while they lie in the row
// (`row_end`); past it ggml reads other rows or foreign memory, and we refuse the row instead.
int best_neighbour2(const IqGridMaps& maps, int key, const float* xval, const float* w, float scale, const float* xg,
                    std::int8_t* levels, const float* row_end) {
  int best = best_neighbour(maps, key, xval, w, scale, xg);
  if (best < 0) {
    if (row_end - xval < maps.grid_size) throw Failed{true};
    float best_d2 = kFltMax;  // no neighbour scored below it
    for (int i = 0; i < maps.grid_size; ++i) {
      const std::uint64_t point = maps.grid[i];
      float d2 = 0;
      for (int j = 0; j < 8; ++j) {
        const float diff = scale * xg[grid_level(point, j)] - xval[i];  // sic: xval[i], as ggml
        d2 += w[j] * diff * diff;
      }
      if (d2 < best_d2) {
        best_d2 = d2;
        best = i;
      }
    }
    if (best < 0) throw Failed{};
  }
  grid_levels(maps.grid[best], levels);
  return best;
}

// The groups of 8 levels in L moved onto the grid, in ggml's order: an off-grid group becomes its
// best neighbour (at `scale`, with group k's level values xx[k]); the grid indices go to `index`.
// Where a group moved, the scale is refitted to the grid points (kept unless both sums are > 0).
template <int Groups>
void snap_to_grid(const IqGridMaps& maps, const float* xb, const float* weight, const float* const (&xx)[Groups],
                  std::int8_t* L, float& scale, std::uint16_t* index, const float* row_end) {
  bool all_on_grid = true;
  for (int k = 0; k < Groups; ++k) {
    const int key = key3_of(L + 8 * k);
    int grid_index = maps.map[key];
    if (grid_index < 0) {
      all_on_grid = false;
      grid_index = best_neighbour2(maps, key, xb + 8 * k, weight + 8 * k, scale, xx[k], L + 8 * k, row_end);
    }
    index[k] = static_cast<std::uint16_t>(grid_index);
  }
  if (all_on_grid) return;
  float sumqx = 0, sumq2 = 0;
  for (int k = 0; k < Groups; ++k) {
    const std::uint64_t point = maps.grid[index[k]];
    for (int j = 0; j < 8; ++j) {
      const float w = weight[8 * k + j];
      const float q = xx[k][grid_level(point, j)];
      sumqx += w * q * xb[8 * k + j];
      sumq2 += w * q * q;
    }
  }
  if (sumqx > 0 && sumq2 > 0) scale = sumqx / sumq2;
}

// The order in which ggml's qsort (glibc's merge sort: stable) puts a sub-block's values: ascending,
// equal values (also -0 and +0) in their original order. A stable insertion sort gives the same order.
template <int N>
void sort_positions(const float* xb, int* order) {
  for (int j = 0; j < N; ++j) {
    const float v = xb[j];
    int p = j;
    while (p > 0 && xb[order[p - 1]] > v) {
      order[p] = order[p - 1];
      --p;
    }
    order[p] = j;
  }
}

inline float block_sigma2(const float* xbl) { return 2 * sum_squares(xbl) / kSuperBlock; }

// Levels 0, 1, 2 to the sorted positions [0, i1), [i1, i2), [i2, n) of ggml's best split. A
// negative scale is made positive by mirroring the levels (l -> 2 - l); returns whether it was,
// for the caller to flip its delta signs too.
template <int N>
bool place_levels(const int* order, int i1, int i2, std::int8_t* L, float& scale) {
  for (int j = 0; j < i1; ++j) L[order[j]] = 0;
  for (int j = i1; j < i2; ++j) L[order[j]] = 1;
  for (int j = i2; j < N; ++j) L[order[j]] = 2;
  if (!(scale < 0)) return false;
  for (int j = 0; j < N; ++j) L[j] = static_cast<std::int8_t>(2 - L[j]);
  scale = -scale;
  return true;
}

constexpr float kIq1sDelta = formats::kIq1sDelta;
constexpr float kIq1mDelta = formats::kIq1mDelta;

// One IQ1_S super-block (50 bytes: d, 32 low index bytes, 8 x uint16 qh: 4 x 3 high index bits,
// 3-bit scale << 12, delta sign << 15).
void iq1_s_block(const float* xbl, const float* qwbl, std::uint8_t* out, const float* row_end) {
  constexpr int kBs = 32;
  const IqGridMaps& maps = kIq1sMaps;
  const float x_p[3] = {-1 + kIq1sDelta, kIq1sDelta, 1 + kIq1sDelta};
  const float x_m[3] = {-1 - kIq1sDelta, -kIq1sDelta, 1 - kIq1sDelta};
  float scales[8], weight[kBs], sumx[kBs + 1], sumw[kBs + 1];
  int order[kBs];
  std::int8_t L[kBs], shifts[8];
  std::uint16_t index[4];
  std::uint8_t* qs = out + 2;
  std::uint16_t qh[8] = {};
  std::memset(qs, 0, 32);
  float max_scale = 0;
  const float sigma2 = block_sigma2(xbl);

  for (int ib = 0; ib < 8; ++ib) {
    const float* xb = xbl + kBs * ib;
    const float* qw = qwbl + kBs * ib;
    for (int i = 0; i < kBs; ++i) weight[i] = qw[i] * std::sqrt(sigma2 + xb[i] * xb[i]);
    float max = std::fabs(xb[0]);
    for (int i = 1; i < kBs; ++i) max = max_of(max, std::fabs(xb[i]));
    if (max < 1e-12f) {
      scales[ib] = 0;
      shifts[ib] = 1;
      continue;
    }
    // Exhaustive search of the two split points of the sorted values, through prefix sums.
    sort_positions<kBs>(xb, order);
    sumx[0] = sumw[0] = 0;
    for (int j = 0; j < kBs; ++j) {
      const int i = order[j];
      sumx[j + 1] = sumx[j] + weight[i] * xb[i];
      sumw[j + 1] = sumw[j] + weight[i];
    }
    // ggml's sums for a split (i1, i2) are (A + B) + C with A depending on i1 only and C on i2 only;
    // those products are formed once here (same operands, same floats) instead of per split.
    float cx_p[kBs + 1], c2_p[kBs + 1], cx_m[kBs + 1], c2_m[kBs + 1];
    for (int i2 = 0; i2 <= kBs; ++i2) {
      cx_p[i2] = (sumx[kBs] - sumx[i2]) * x_p[2];
      c2_p[i2] = (sumw[kBs] - sumw[i2]) * x_p[2] * x_p[2];
      cx_m[i2] = (sumx[kBs] - sumx[i2]) * x_m[2];
      c2_m[i2] = (sumw[kBs] - sumw[i2]) * x_m[2] * x_m[2];
    }
    float best_score = -kFltMax, scale = max;
    int besti1 = -1, besti2 = -1, best_shift = 0;
    for (int i1 = 0; i1 <= kBs; ++i1) {
      const float ax_p = (sumx[i1] - sumx[0]) * x_p[0], a2_p = (sumw[i1] - sumw[0]) * x_p[0] * x_p[0];
      const float ax_m = (sumx[i1] - sumx[0]) * x_m[0], a2_m = (sumw[i1] - sumw[0]) * x_m[0] * x_m[0];
      for (int i2 = i1; i2 <= kBs; ++i2) {
        const float bx = sumx[i2] - sumx[i1], bw = sumw[i2] - sumw[i1];
        float sumqx = (ax_p + bx * x_p[1]) + cx_p[i2];
        float sumq2 = (a2_p + bw * x_p[1] * x_p[1]) + c2_p[i2];
        if (take_if_better(sumqx, sumq2, scale, best_score)) {
          besti1 = i1;
          besti2 = i2;
          best_shift = 1;
        }
        sumqx = (ax_m + bx * x_m[1]) + cx_m[i2];
        sumq2 = (a2_m + bw * x_m[1] * x_m[1]) + c2_m[i2];
        if (take_if_better(sumqx, sumq2, scale, best_score)) {
          besti1 = i1;
          besti2 = i2;
          best_shift = -1;
        }
      }
    }
    if (besti1 < 0 || besti2 < 0 || best_shift == 0) {
      scales[ib] = 0;
      shifts[ib] = 1;
      continue;
    }
    if (place_levels<kBs>(order, besti1, besti2, L, scale)) best_shift = -best_shift;
    const float* xx = best_shift == 1 ? x_p : x_m;
    const float* const group_values[kBs / 8] = {xx, xx, xx, xx};
    snap_to_grid(maps, xb, weight, group_values, L, scale, index, row_end);
    std::uint16_t h = 0;
    for (int k = 0; k < kBs / 8; ++k) {
      qs[(kBs / 8) * ib + k] = static_cast<std::uint8_t>(index[k] & 255);
      h = static_cast<std::uint16_t>(h | ((index[k] >> 8) << (3 * k)));
    }
    qh[ib] = h;
    if (!(scale >= 0)) throw Failed{};
    scales[ib] = scale;
    shifts[ib] = static_cast<std::int8_t>(best_shift);
    max_scale = max_of(max_scale, scale);
  }

  if (max_scale == 0) {
    detail::store_u16(out, 0);
  } else {
    const float d = max_scale / 15;
    detail::store_half(out, d * 1.125f);  // ggml's fudge factor on the stored scale
    const float id = 1 / d;
    for (int ib = 0; ib < 8; ++ib) {
      int l = odd_level(id, scales[ib], 7);
      if (shifts[ib] == -1) l |= 8;
      qh[ib] = static_cast<std::uint16_t>(qh[ib] | (l << 12));
    }
  }
  for (int ib = 0; ib < 8; ++ib) detail::store_u16(out + 34 + 2 * ib, qh[ib]);
}

// The contributions of one value to the four sums of IQ1_M's split search: sign pattern k (0: +,+;
// 1: +,-; 2: -,+; 3: -,-) applies the first sign to the sub-block's first 8 values, the second to
// the last 8. Products are formed as ggml forms them (w * x_shift[level] * x, w * x_shift * x_shift).
struct Contribution {
  float qx[4];
  float q2[4];
};

// One IQ1_M super-block (56 bytes: 32 low index bytes, 16 qh bytes (2 x 3 high index bits, delta
// signs 0x08 / 0x80), 4 x uint16 scales: 4 x 3-bit sub-block scales and a nibble of the fp16 scale).
void iq1_m_block(const float* xbl, const float* qwbl, std::uint8_t* out, const float* row_end) {
  constexpr int kBs = 16;
  const IqGridMaps& maps = kIq1sMaps;
  const float x_p[3] = {-1 + kIq1mDelta, kIq1mDelta, 1 + kIq1mDelta};
  const float x_m[3] = {-1 - kIq1mDelta, -kIq1mDelta, 1 - kIq1mDelta};
  constexpr std::uint8_t kMasks[4] = {0x00, 0x80, 0x08, 0x88};
  float scales[16], weight[kBs];
  int order[kBs];
  std::int8_t L[kBs], shifts[16];
  std::uint16_t index[2];
  Contribution contrib[kBs][3];  // by sorted position and level
  std::uint8_t* qs = out;
  std::uint8_t* qh = out + 32;
  std::memset(out, 0, 56);
  float max_scale = 0;
  const float sigma2 = block_sigma2(xbl);

  for (int ib = 0; ib < 16; ++ib) {
    const float* xb = xbl + kBs * ib;
    importance_weights(kBs, xb, qwbl ? qwbl + kBs * ib : nullptr, sigma2, weight);
    float max = std::fabs(xb[0]);
    for (int i = 1; i < kBs; ++i) max = max_of(max, std::fabs(xb[i]));
    if (max < 1e-7f) {
      scales[ib] = 0;
      shifts[ib] = 0;
      continue;
    }
    sort_positions<kBs>(xb, order);
    for (int j = 0; j < kBs; ++j) {
      const int i = order[j];
      for (int lv = 0; lv < 3; ++lv) {
        const float px = weight[i] * x_p[lv] * xb[i], mx = weight[i] * x_m[lv] * xb[i];
        const float p2 = weight[i] * x_p[lv] * x_p[lv], m2 = weight[i] * x_m[lv] * x_m[lv];
        Contribution& c = contrib[j][lv];
        const bool first_half = i < kBs / 2;
        c.qx[0] = px;
        c.qx[1] = first_half ? px : mx;
        c.qx[2] = first_half ? mx : px;
        c.qx[3] = mx;
        c.q2[0] = p2;
        c.q2[1] = first_half ? p2 : m2;
        c.q2[2] = first_half ? m2 : p2;
        c.q2[3] = m2;
      }
    }
    // ggml sums, for each split (i1, i2), the sorted positions 0..i1-1 at level 0, i1..i2-1 at level 1
    // and i2..15 at level 2, from zero, in that order. The running prefixes below are those same
    // partial sums (same additions, same order), so only the level-2 tail is summed per split.
    float best_score = -kFltMax, scale = max;
    int besti1 = -1, besti2 = -1, best_k = -1;
    float pre_qx[4] = {0, 0, 0, 0}, pre_q2[4] = {0, 0, 0, 0};  // positions < i1 at level 0
    for (int i1 = 0; i1 <= kBs; ++i1) {
      if (i1 > 0) {
        for (int k = 0; k < 4; ++k) {
          pre_qx[k] += contrib[i1 - 1][0].qx[k];
          pre_q2[k] += contrib[i1 - 1][0].q2[k];
        }
      }
      float mid_qx[4], mid_q2[4];  // plus positions i1..i2-1 at level 1
      for (int k = 0; k < 4; ++k) {
        mid_qx[k] = pre_qx[k];
        mid_q2[k] = pre_q2[k];
      }
      for (int i2 = i1; i2 <= kBs; ++i2) {
        if (i2 > i1) {
          for (int k = 0; k < 4; ++k) {
            mid_qx[k] += contrib[i2 - 1][1].qx[k];
            mid_q2[k] += contrib[i2 - 1][1].q2[k];
          }
        }
        float sumqx[4], sumq2[4];
        for (int k = 0; k < 4; ++k) {
          sumqx[k] = mid_qx[k];
          sumq2[k] = mid_q2[k];
        }
        for (int j = i2; j < kBs; ++j) {
          for (int k = 0; k < 4; ++k) {
            sumqx[k] += contrib[j][2].qx[k];
            sumq2[k] += contrib[j][2].q2[k];
          }
        }
        for (int k = 0; k < 4; ++k) {
          if (take_if_better(sumqx[k], sumq2[k], scale, best_score)) {
            besti1 = i1;
            besti2 = i2;
            best_k = k;
          }
        }
      }
    }
    if (besti1 < 0 || besti2 < 0 || best_k < 0) {
      scales[ib] = 0;
      shifts[ib] = 0;
      continue;
    }
    if (place_levels<kBs>(order, besti1, besti2, L, scale)) best_k = 3 - best_k;  // both signs flip
    // The first sign of pattern best_k goes with the first 8 values, the second with the last 8.
    const float* const group_values[2] = {best_k < 2 ? x_p : x_m, best_k % 2 == 0 ? x_p : x_m};
    snap_to_grid(maps, xb, weight, group_values, L, scale, index, row_end);
    qs[2 * ib + 0] = static_cast<std::uint8_t>(index[0] & 255);
    qs[2 * ib + 1] = static_cast<std::uint8_t>(index[1] & 255);
    qh[ib] = static_cast<std::uint8_t>((index[0] >> 8) | ((index[1] >> 8) << 4));
    if (!(scale >= 0)) throw Failed{};
    scales[ib] = scale;
    shifts[ib] = static_cast<std::int8_t>(best_k);
    max_scale = max_of(max_scale, scale);
  }

  if (max_scale == 0) return;  // no scale: the indices as written, zero scales (ggml leaves the block so)

  std::uint16_t sc[4] = {0, 0, 0, 0};
  float d = max_scale / 15;
  const float id = 1 / d;
  float sumqx_f = 0, sumq2_f = 0;
  for (int ib = 0; ib < 16; ++ib) {
    int l = odd_level(id, scales[ib], 7);
    sc[ib / 4] = static_cast<std::uint16_t>(sc[ib / 4] | (l << (3 * (ib % 4))));
    qh[ib] |= kMasks[shifts[ib]];
    const float* xb = xbl + kBs * ib;
    importance_weights(kBs, xb, qwbl ? qwbl + kBs * ib : nullptr, sigma2, weight);
    const float level_scale = static_cast<float>(2 * l + 1);
    for (int k = 0; k < 2; ++k) {
      const float* xx = (k == 0 ? shifts[ib] < 2 : shifts[ib] % 2 == 0) ? x_p : x_m;
      const int grid_index = qs[2 * ib + k] | ((qh[ib] << (8 - 4 * k)) & 0x700);
      const std::uint64_t point = maps.grid[grid_index];
      for (int j = 0; j < 8; ++j) {
        const float w = weight[8 * k + j];
        const float q = xx[grid_level(point, j)] * level_scale;
        sumqx_f += w * q * xb[8 * k + j];
        sumq2_f += w * q * q;
      }
    }
  }
  if (sumq2_f > 0) d = sumqx_f / sumq2_f;
  const std::uint16_t d16 = detail::ggml_half(d * 1.1125f);  // ggml's fudge factor
  sc[0] = static_cast<std::uint16_t>(sc[0] | ((d16 & 0x000f) << 12));
  sc[1] = static_cast<std::uint16_t>(sc[1] | ((d16 & 0x00f0) << 8));
  sc[2] = static_cast<std::uint16_t>(sc[2] | ((d16 & 0x0f00) << 4));
  sc[3] = static_cast<std::uint16_t>(sc[3] | (d16 & 0xf000));
  for (int i = 0; i < 4; ++i) detail::store_u16(out + 48 + 2 * i, sc[i]);
}

}  // namespace

// The caller guarantees a non-null importance for IQ1_S (ggml asserts it); IQ1_M takes null.
void quantize_iq1_s(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row,
                    const float* importance) {
  quantize_rows<iq1_s_block, 50>(x, dst, rows, n_per_row, importance, "IQ1_S");
}

void quantize_iq1_m(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row,
                    const float* importance) {
  quantize_rows<iq1_m_block, 56>(x, dst, rows, n_per_row, importance, "IQ1_M");
}

}  // namespace onnxq::quantize
