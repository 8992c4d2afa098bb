// The steps ggml's IQ grid quantizers (iq1.cpp, iq2.cpp, iq2s.cpp, iq3.cpp) share: its roundings,
// the sign folding of a sub-block, the weighted sums of a level assignment, the candidate-scale
// test, the search of an 8-level grid point's neighbours, the 16-value scale search of IQ2_XS and
// IQ2_S, and the row loops (quantize_blocks for the formats that name their own refusals,
// quantize_rows for those whose blocks throw Failed). Each is ggml's float operations in
// ggml's order (lib/src/quantize is compiled with -ffp-contract=off): that is what makes the bytes
// equal, so a caller must not reorder them either.
//
// Internal linkage, as the vector layers: an inline function compiled under other flags elsewhere
// can never be the copy the linker keeps.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "quantize/iq2_maps.hpp"
#include "quantize/kernels.hpp"

namespace onnxq::quantize {
namespace {

constexpr int kSuperBlock = 256;

// ggml's nearest_int, bit for bit: round to nearest even via the 1.5 * 2^23 magic number. Outside
// its exact range (and for inf/NaN, reached once sums overflow) the mantissa bits still decide, so
// the result is kept as ggml computes it rather than replaced by a "correct" rounding.
inline int round_magic(float v) {
  const float shifted = v + 12582912.f;
  return static_cast<int>(std::bit_cast<std::uint32_t>(shifted) & 0x007FFFFFu) - 0x00400000;
}

// ggml's MAX(a, b) = a > b ? a : b (matters only for the sign of zero and NaN).
inline float max_of(float a, float b) { return a > b ? a : b; }

inline int clamp_level(int l, int top) { return l < 0 ? 0 : (l > top ? top : l); }

// The level l in 0..top whose value 2l+1 is nearest to id * v (ggml's
// MAX(0, MIN(top, nearest_int(0.5f*(id*v-1))))): the grid levels and the 4-bit sub-block scales.
inline int odd_level(float id, float v, int top) { return clamp_level(round_magic(0.5f * (id * v - 1)), top); }

// The base-3 key of 8 levels 0..2 (iq2_maps.hpp's key3).
inline int key3_of(const std::int8_t* l) {
  int key = 0;
  for (int i = 7; i >= 0; --i) key = 3 * key + l[i];
  return key;
}

// Level i of an iq2_maps.hpp grid point (its byte is 2l+1).
inline int grid_level(std::uint64_t point, int i) { return static_cast<int>((point >> (8 * i)) & 0xFF) >> 1; }

inline void grid_levels(std::uint64_t point, std::int8_t* levels) {
  for (int i = 0; i < 8; ++i) levels[i] = static_cast<std::int8_t>(grid_level(point, i));
}

// The sum of squares of a super-block, in ggml's order (its sigma2 is this / 256, or twice that).
inline float sum_squares(const float* xbl) {
  float sumx2 = 0;
  for (int i = 0; i < kSuperBlock; ++i) sumx2 += xbl[i] * xbl[i];
  return sumx2;
}

// ggml's weights of n values: with an importance matrix qw * sqrt(sigma2 + x^2), otherwise x^2.
inline void importance_weights(int n, const float* xb, const float* qw, float sigma2, float* weight) {
  if (qw) {
    for (int i = 0; i < n; ++i) weight[i] = qw[i] * std::sqrt(sigma2 + xb[i] * xb[i]);
  } else {
    for (int i = 0; i < n; ++i) weight[i] = xb[i] * xb[i];
  }
}

// The magnitudes of 8 values into xval; returns their 8 sign bits (bit i: xb[i] < 0).
inline std::uint8_t split_signs(const float* xb, float* xval) {
  unsigned s = 0;
  for (int i = 0; i < 8; ++i) {
    if (xb[i] >= 0) {
      xval[i] = xb[i];
    } else {
      xval[i] = -xb[i];
      s |= 1u << i;
    }
  }
  return static_cast<std::uint8_t>(s);
}

// As split_signs, for formats that store only 7 sign bits per 8 values: the count of negatives is
// made even by letting the value of smallest w*x^2 (first on ties) keep its sign (its magnitude
// goes negative). Returns ggml's 7 stored bits.
inline std::uint8_t fold_signs(const float* xb, const float* weight, float* xval) {
  unsigned s = split_signs(xb, xval);
  if (std::popcount(s) % 2) {
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
    s ^= 1u << imin;
  }
  return static_cast<std::uint8_t>(s & 127u);
}

// A sub-block's setup, in ggml's order: the weights (importance_weights) and their square roots
// waux, the magnitudes xval and the sign bits of each 8 values (fold_signs where only 7 are
// stored, else split_signs). Returns the largest magnitude (ggml's max, by max_of).
template <int N, bool kFoldSigns>
float prepare_subblock(const float* xb, const float* qw, float sigma2, float* weight, float* waux, float* xval,
                       std::uint8_t* block_signs) {
  importance_weights(N, xb, qw, sigma2, weight);
  for (int i = 0; i < N; ++i) waux[i] = std::sqrt(weight[i]);
  for (int k = 0; k < N / 8; ++k) {
    block_signs[k] =
        kFoldSigns ? fold_signs(xb + 8 * k, weight + 8 * k, xval + 8 * k) : split_signs(xb + 8 * k, xval + 8 * k);
  }
  float max = xval[0];
  for (int i = 1; i < N; ++i) max = max_of(max, xval[i]);
  return max;
}

// ggml's sumqx = sum w*x*q and sumq2 = sum w*q*q over q = 2L+1, from 0 in index order; wx[i] is the
// product weight[i] * xval[i], formed once by the caller (w * x * q parses as (w * x) * q).
struct LevelSums {
  float qx = 0, q2 = 0;
};
inline LevelSums level_sums(int n, const float* wx, const float* weight, const std::int8_t* L) {
  LevelSums s;
  for (int i = 0; i < n; ++i) {
    const float q = static_cast<float>(2 * L[i] + 1);
    s.qx += wx[i] * q;
    s.q2 += weight[i] * q * q;
  }
  return s;
}

// ggml's test of a candidate in its scale searches: a larger sumqx^2 / sumq2 (never on a NaN) takes
// scale = sumqx / sumq2 and score = scale * sumqx. True when it did.
inline bool take_if_better(float sumqx, float sumq2, float& scale, float& best) {
  if (!(sumq2 > 0 && sumqx * sumqx > best * sumq2)) return false;
  scale = sumqx / sumq2;
  best = scale * sumqx;
  return true;
}

// ggml's iq1/iq2 find_best_neighbour: among the off-grid key's neighbours, the grid point of the
// smallest sum w*(scale*q[l] - x)^2 (first on ties; a NaN never wins), or -1 when none sums below
// FLT_MAX (overflowed sums: ggml's assertion or fallback). q holds the values of levels 0..2. A term
// depends only on the coordinate and its level, so the 8 x 3 possible terms are formed once (the
// same operations on the same operands, hence the same floats), indexed by the grid byte 2l+1;
// each neighbour then only sums its 8 terms, in ggml's order.
inline int best_neighbour(const IqGridMaps& maps, int key, const float* xval, const float* w, float scale,
                          const float* q) {
  float term[8][8];  // [coordinate][grid byte 1, 3, 5]
  for (int i = 0; i < 8; ++i) {
    for (int l = 0; l < 3; ++l) {
      const float diff = scale * q[l] - xval[i];
      term[i][2 * l + 1] = w[i] * diff * diff;
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
  return best;
}

// Runs block_fn(super-block, its importance or null, its output, row) over every super-block of
// `rows` rows of n_per_row values (IQ2_S, IQ3: the blocks throw their own RowFailure).
template <class BlockFn>
void quantize_blocks(BlockFn block_fn, std::size_t block_bytes, const float* x, std::uint8_t* dst, std::size_t rows,
                     std::size_t n_per_row, const float* importance) {
  const std::size_t nblocks = n_per_row / kSuperBlock;
  for (std::size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n_per_row;
    std::uint8_t* out = dst + r * nblocks * block_bytes;
    for (std::size_t b = 0; b < nblocks; ++b) {
      block_fn(xr + b * kSuperBlock, importance ? importance + b * kSuperBlock : nullptr, out + b * block_bytes, r);
    }
  }
}

// The values 1, 3, 5 of the iq2 grids' levels 0..2 (scale * q[l] is ggml's scale * (2l+1)).
constexpr float kIq2LevelValues[3] = {1.f, 3.f, 5.f};

// A row ggml cannot quantize, thrown by an IQ1 / IQ2 block and turned into RowFailure per row by
// quantize_rows: an assertion (`undefined` false), reached only once squared sums overflow, or
// IQ1's whole-grid fallback reading past the row (`undefined` true: ggml's bytes would depend on
// memory outside the row).
struct Failed {
  bool undefined = false;
};

// Rounds 8 magnitudes at inverse scale `id` to the levels 0..2 of an iq2 grid; returns their key3.
inline int round_group(float id, const float* xval, std::int8_t* levels) {
  int key = 0;
  for (int i = 7; i >= 0; --i) {
    const int l = odd_level(id, xval[i], 2);
    levels[i] = static_cast<std::int8_t>(l);
    key = 3 * key + l;
  }
  return key;
}

// ggml's iq2_find_best_neighbour, which asserts (Failed) where none is found; writes the
// neighbour's levels to `levels`.
inline void move_to_neighbour(const IqGridMaps& maps, int key, const float* xval, const float* w, float scale,
                              std::int8_t* levels) {
  const int best = best_neighbour(maps, key, xval, w, scale, kIq2LevelValues);
  if (best < 0) throw Failed{};
  grid_levels(maps.grid[best], levels);
}

// ggml's scale search of a 16-value sub-block on an iq2 grid (IQ2_XS, IQ2_S): 19 candidate scales
// (5 + 0.1 is) / max, is in [-9, 9], each rounding both groups of 8 to levels 0..2 (an off-grid
// group moved to its best neighbour), the best by take_if_better; then the chosen groups that were
// off the grid are placed again at the chosen scale and the scale refitted. Writes L and returns
// ggml's `scale`; throws Failed where no neighbour is found (overflowed sums).
inline float search_16(const IqGridMaps& maps, const float* xval, const float* weight, const float* waux, float max,
                       std::int8_t* L) {
  std::int8_t Laux[16];
  bool on_grid[2] = {true, true};
  bool on_grid_aux[2];
  float wx[16];  // w * x: the same float in every candidate's sums
  for (int i = 0; i < 16; ++i) wx[i] = weight[i] * xval[i];
  float best = 0;
  float scale = max / 5;
  for (int is = -9; is <= 9; ++is) {
    const float id = (5 + static_cast<float>(is) * 0.1f) / max;
    const float this_scale = 1 / id;
    for (int k = 0; k < 2; ++k) {
      const int key = round_group(id, xval + 8 * k, Laux + 8 * k);
      on_grid_aux[k] = maps.map[key] >= 0;
      if (!on_grid_aux[k]) move_to_neighbour(maps, key, xval + 8 * k, waux + 8 * k, this_scale, Laux + 8 * k);
    }
    const LevelSums sums = level_sums(16, wx, weight, Laux);
    if (take_if_better(sums.qx, sums.q2, scale, best)) {
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
      if (maps.map[key] < 0) move_to_neighbour(maps, key, xval + 8 * k, waux + 8 * k, scale, L + 8 * k);
    }
    const LevelSums sums = level_sums(16, wx, weight, L);
    if (sums.q2 > 0) scale = sums.qx / sums.q2;
  }
  return scale;
}

// Runs Block(super-block, its importance or null, its output, end of the row) over every
// super-block of `rows` rows; a block's Failed becomes that row's RowFailure, named `name`.
template <void (*Block)(const float*, const float*, std::uint8_t*, const float*), std::size_t BlockBytes>
void quantize_rows(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row, const float* importance,
                   const char* name) {
  const std::size_t nbl = n_per_row / kSuperBlock;
  for (std::size_t r = 0; r < rows; ++r) {
    const float* row = x + r * n_per_row;
    std::uint8_t* out = dst + r * nbl * BlockBytes;
    try {
      for (std::size_t b = 0; b < nbl; ++b)
        Block(row + b * kSuperBlock, importance ? importance + b * kSuperBlock : nullptr, out + b * BlockBytes,
              row + n_per_row);
    } catch (const Failed& f) {
      throw RowFailure(r, std::string(name) +
                              (f.undefined ? ": the grid search overflowed and ggml's fallback would read past the row "
                                             "(its result is undefined there)"
                                           : ": the grid search found no point (ggml aborts on this row: its squared "
                                             "sums overflow)"));
    }
  }
}

}  // namespace
}  // namespace onnxq::quantize
