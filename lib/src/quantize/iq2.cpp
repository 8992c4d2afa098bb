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
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "quantize/iq2_maps.hpp"
#include "quantize/kernels.hpp"
#include "quantize/rounding.hpp"
#include "quantize/scale_search.hpp"

namespace onnxq::quantize {
namespace {

constexpr int kSuperBlock = 256;
constexpr int kMaxQ = 3;  // levels 0..kMaxQ-1 on the grid
constexpr float kGroupMaxEps = 1e-15f;

// ggml's nearest_int, bit for bit (also outside its exact range, and for inf/NaN).
inline int round_magic(float v) {
  const float shifted = v + 12582912.f;
  return static_cast<int>(std::bit_cast<std::uint32_t>(shifted) & 0x007FFFFFu) - 0x00400000;
}

// ggml's MAX(a, b) = a > b ? a : b.
inline float max_of(float a, float b) { return a > b ? a : b; }

inline int clamp_level(int l) { return l < 0 ? 0 : (l > kMaxQ - 1 ? kMaxQ - 1 : l); }

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

// Level i of a map grid point (its byte is 2l+1).
inline int grid_level(std::uint64_t point, int i) { return static_cast<int>((point >> (8 * i)) & 0xFF) >> 1; }

struct Failed {};  // a grid search that found nothing: ggml's assertion; turned into RowFailure per row

// ggml's iq2_find_best_neighbour: the neighbour of smallest sum w*(scale*q - x)^2 (first on ties);
// writes its levels to `levels`. A term depends only on the coordinate and its level, so the 8 x 3
// possible terms are formed once (the same operations on the same operands, hence the same floats),
// indexed by the grid byte 2l+1; each neighbour then only sums its 8 terms, in ggml's order.
int best_neighbour(const IqGridMaps& maps, int key, const float* xval, const float* w, float scale,
                   std::int8_t* levels) {
  float term[8][8];  // [coordinate][grid byte 1, 3, 5]
  for (int i = 0; i < 8; ++i) {
    for (int b = 1; b <= 5; b += 2) {
      const float diff = scale * static_cast<float>(b) - xval[i];
      term[i][b] = w[i] * diff * diff;
    }
  }
  const NeighbourList list = neighbours_of(maps, key);
  float best_d2 = 3.40282347e+38f;  // FLT_MAX
  int best = -1;
  const int n = list.size();
  for (int j = 0; j < n; ++j) {
    const int index = list[j];
    const std::uint64_t point = maps.grid[index];
    // Unrolled and without an early exit: unpredictable branches cost more than the adds saved.
    float d2 = 0;
    d2 += term[0][point & 7];
    d2 += term[1][(point >> 8) & 7];
    d2 += term[2][(point >> 16) & 7];
    d2 += term[3][(point >> 24) & 7];
    d2 += term[4][(point >> 32) & 7];
    d2 += term[5][(point >> 40) & 7];
    d2 += term[6][(point >> 48) & 7];
    d2 += term[7][(point >> 56) & 7];
    if (d2 < best_d2) {
      best_d2 = d2;
      best = index;
    }
  }
  if (best < 0) throw Failed{};
  for (int i = 0; i < 8; ++i) levels[i] = static_cast<std::int8_t>(grid_level(maps.grid[best], i));
  return best;
}

// Rounds 8 magnitudes at inverse scale `id` to levels 0..2; returns their base-3 key.
inline int round_group(float id, const float* xval, std::int8_t* levels) {
  int key = 0;
  for (int i = 7; i >= 0; --i) {
    const int l = clamp_level(round_magic(0.5f * (id * xval[i] - 1)));
    levels[i] = static_cast<std::int8_t>(l);
    key = 3 * key + l;
  }
  return key;
}

// Makes the values of a group of 8 non-negative (xval) with an even number of flips: if the count
// of negatives is odd, the value of smallest w*x^2 keeps its sign (its magnitude goes negative).
// Returns ggml's 7 stored sign bits.
inline std::uint8_t fold_signs(const float* xb, const float* weight, float* xval) {
  int nflip = 0;
  std::uint8_t s = 0;
  for (int i = 0; i < 8; ++i) {
    if (xb[i] >= 0) {
      xval[i] = xb[i];
    } else {
      xval[i] = -xb[i];
      ++nflip;
      s |= static_cast<std::uint8_t>(1 << i);
    }
  }
  if (nflip % 2) {
    int imin = 0;
    float min = weight[0] * xb[0] * xb[0];
    for (int i = 1; i < 8; ++i) {
      const float ax = weight[i] * xb[i] * xb[i];
      if (ax < min) {
        min = ax;
        imin = i;
      }
    }
    xval[imin] = -xval[imin];
    s ^= static_cast<std::uint8_t>(1 << imin);
  }
  return s & 127;
}

// Sum of squares of a super-block, ggml's sigma2 = sumx2 / 256.
inline float block_sigma2(const float* xbl) {
  float sumx2 = 0;
  for (int i = 0; i < kSuperBlock; ++i) sumx2 += xbl[i] * xbl[i];
  return sumx2 / kSuperBlock;
}

// One IQ2_XXS super-block (66 bytes: d, then 8 x (4 grid indices, 4 x 7 sign bits + 4-bit scale)).
void iq2_xxs_block(const float* xbl, const float* qwbl, std::uint8_t* out) {
  const IqGridMaps& maps = kIq2xxsMaps;
  float scales[8];
  float weight[32], waux[32], xval[32];
  std::int8_t L[32], Laux[32];
  std::uint8_t block_signs[4];
  std::uint32_t q2[16] = {};
  float max_scale = 0;
  const float sigma2 = block_sigma2(xbl);

  for (int ib = 0; ib < 8; ++ib) {
    const float* xb = xbl + 32 * ib;
    const float* qw = qwbl + 32 * ib;
    for (int i = 0; i < 32; ++i) weight[i] = qw[i] * std::sqrt(sigma2 + xb[i] * xb[i]);
    for (int i = 0; i < 32; ++i) waux[i] = std::sqrt(weight[i]);
    for (int k = 0; k < 4; ++k) block_signs[k] = fold_signs(xb + 8 * k, weight + 8 * k, xval + 8 * k);
    float max = xval[0];
    for (int i = 1; i < 32; ++i) max = max_of(max, xval[i]);
    if (max < kGroupMaxEps) {
      scales[ib] = 0;
      continue;
    }
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
        if (maps.map[key] < 0) best_neighbour(maps, key, xval + 8 * k, waux + 8 * k, this_scale, Laux + 8 * k);
      }
      float sumqx = 0, sumq2 = 0;
      for (int i = 0; i < 32; ++i) {
        const float w = weight[i];
        const float q = static_cast<float>(2 * Laux[i] + 1);
        sumqx += w * xval[i] * q;
        sumq2 += w * q * q;
      }
      if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
        scale = sumqx / sumq2;
        best = scale * sumqx;
        std::memcpy(L, Laux, 32);
      }
    }
    if (scale > 0) {
      const float id = 1 / scale;
      for (int k = 0; k < 4; ++k) {
        const int key = round_group(id, xval + 8 * k, L + 8 * k);
        if (maps.map[key] < 0) best_neighbour(maps, key, xval + 8 * k, waux + 8 * k, scale, L + 8 * k);
      }
      float sumqx = 0, sumq2 = 0;
      for (int i = 0; i < 32; ++i) {
        const float w = weight[i];
        const float q = static_cast<float>(2 * L[i] + 1);
        sumqx += w * xval[i] * q;
        sumq2 += w * q * q;
      }
      if (sumq2 > 0) scale = sumqx / sumq2;
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
    int l = round_magic(0.5f * (id * scales[ib] - 1));
    l = l < 0 ? 0 : (l > 15 ? 15 : l);
    q2[2 * ib + 1] |= static_cast<std::uint32_t>(l) << 28;
  }
  for (int i = 0; i < 16; ++i) detail::store_u32(out + 2 + 4 * i, q2[i]);
}

// One IQ2_XS super-block (74 bytes: d, 32 x uint16 (9-bit grid index | 7 sign bits << 9), 8 bytes of
// two 4-bit sub-block scales).
void iq2_xs_block(const float* xbl, const float* qwbl, std::uint8_t* out) {
  const IqGridMaps& maps = kIq2xsMaps;
  float scales[16];
  float weight[16], waux[16], xval[16];
  std::int8_t L[16], Laux[16];
  bool on_grid[2], on_grid_aux[2];
  std::uint8_t block_signs[2];
  std::uint16_t q2[32] = {};
  float max_scale = 0;
  const float sigma2 = block_sigma2(xbl);

  for (int ib = 0; ib < 16; ++ib) {
    const float* xb = xbl + 16 * ib;
    const float* qw = qwbl + 16 * ib;
    for (int i = 0; i < 16; ++i) weight[i] = qw[i] * std::sqrt(sigma2 + xb[i] * xb[i]);
    for (int i = 0; i < 16; ++i) waux[i] = std::sqrt(weight[i]);
    for (int k = 0; k < 2; ++k) block_signs[k] = fold_signs(xb + 8 * k, weight + 8 * k, xval + 8 * k);
    float max = xval[0];
    for (int i = 1; i < 16; ++i) max = max_of(max, xval[i]);
    std::memset(L, 0, 16);
    if (max < kGroupMaxEps) {
      scales[ib] = 0;
      continue;
    }
    float best = 0;
    float scale = max / (2 * kMaxQ - 1);
    on_grid[0] = on_grid[1] = true;
    for (int is = -9; is <= 9; ++is) {
      const float id = (2 * kMaxQ - 1 + static_cast<float>(is) * 0.1f) / max;
      const float this_scale = 1 / id;
      for (int k = 0; k < 2; ++k) {
        const int key = round_group(id, xval + 8 * k, Laux + 8 * k);
        on_grid_aux[k] = maps.map[key] >= 0;
        if (!on_grid_aux[k]) best_neighbour(maps, key, xval + 8 * k, waux + 8 * k, this_scale, Laux + 8 * k);
      }
      float sumqx = 0, sumq2 = 0;
      for (int i = 0; i < 16; ++i) {
        const float w = weight[i];
        const float q = static_cast<float>(2 * Laux[i] + 1);
        sumqx += w * xval[i] * q;
        sumq2 += w * q * q;
      }
      if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
        scale = sumqx / sumq2;
        best = scale * sumqx;
        std::memcpy(L, Laux, 16);
        on_grid[0] = on_grid_aux[0];
        on_grid[1] = on_grid_aux[1];
      }
    }
    if ((!on_grid[0] || !on_grid[1]) && scale > 0) {
      const float id = 1 / scale;
      for (int k = 0; k < 2; ++k) {
        if (on_grid[k]) continue;
        const int key = round_group(id, xval + 8 * k, L + 8 * k);
        if (maps.map[key] < 0) best_neighbour(maps, key, xval + 8 * k, waux + 8 * k, scale, L + 8 * k);
      }
      float sumqx = 0, sumq2 = 0;
      for (int i = 0; i < 16; ++i) {
        const float w = weight[i];
        const float q = static_cast<float>(2 * L[i] + 1);
        sumqx += w * xval[i] * q;
        sumq2 += w * q * q;
      }
      if (sumq2 > 0) scale = sumqx / sumq2;
    }
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
    int l = round_magic(0.5f * (id * scales[ib] - 1));
    l = l < 0 ? 0 : (l > 15 ? 15 : l);
    if (ib % 2 == 0)
      sc[ib / 2] = static_cast<std::uint8_t>(l);
    else
      sc[ib / 2] |= static_cast<std::uint8_t>(l << 4);
  }
  for (int i = 0; i < 32; ++i) detail::store_u16(out + 2 + 2 * i, q2[i]);
}

template <void (*Block)(const float*, const float*, std::uint8_t*), std::size_t BlockBytes>
void quantize_rows(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row, const float* importance,
                   const char* name) {
  const std::size_t nbl = n_per_row / kSuperBlock;
  for (std::size_t r = 0; r < rows; ++r) {
    const float* row = x + r * n_per_row;
    std::uint8_t* out = dst + r * nbl * BlockBytes;
    try {
      for (std::size_t b = 0; b < nbl; ++b) Block(row + b * kSuperBlock, importance + b * kSuperBlock, out + b * BlockBytes);
    } catch (const Failed&) {
      throw RowFailure(r, std::string(name) + ": the grid search found no point (ggml aborts on this row: its squared "
                                               "sums overflow)");
    }
  }
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
