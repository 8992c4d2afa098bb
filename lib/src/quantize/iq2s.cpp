// IQ2_S: ggml's quantize_row_iq2_s_impl (src/ggml-quants.c at commit d99724f2). Each 256-value
// super-block is cut into sixteen 16-value sub-blocks; a sub-block's magnitudes are matched, eight
// at a time, to points of the 1024-point grid of 2-bit levels (value 2l+1, l in 0..2) under a
// per-sub-block scale found by a search over candidate scales; the 8 signs per point are stored
// whole. The float operations below are ggml's, in ggml's order (this file is compiled with
// -ffp-contract=off): that is what makes the bytes equal.
//
// The grid tables are iq2_maps.hpp's kIq2sMaps (ggml's iq2xs_init_impl(GGML_TYPE_IQ2_S)).
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "quantize/iq2_maps.hpp"
#include "quantize/kernels.hpp"
#include "quantize/rounding.hpp"

namespace onnxq::quantize {
namespace {

constexpr int kSuperBlock = 256;
constexpr int kSubBlock = 16;
constexpr int kSubBlocks = kSuperBlock / kSubBlock;  // 16
constexpr int kTopLevel = 2;                         // levels 0..2 stand for 1, 3, 5
constexpr int kBlockBytes = 82;                      // d, qs[32], signs[32], qh[8], scales[8]

// ggml's nearest_int, bit for bit (see iq3.cpp): the magic-number rounding is kept even where it
// is no longer a rounding (huge, inf or NaN arguments once sums overflow).
inline int round_magic(float v) {
  const float shifted = v + 12582912.f;
  return static_cast<int>(std::bit_cast<std::uint32_t>(shifted) & 0x007FFFFFu) - 0x00400000;
}

inline int clamp_level(int l, int top) { return l < 0 ? 0 : (l > top ? top : l); }

// ggml's MAX(a, b) = a > b ? a : b.
inline float max_of(float a, float b) { return a > b ? a : b; }

// The base-3 key of 8 levels (iq2_maps.hpp's key3).
inline int key_of(const std::int8_t* l) {
  int key = 0;
  for (int k = 7; k >= 0; --k) key = 3 * key + l[k];
  return key;
}

inline void levels_of(std::uint64_t point, std::int8_t* l) {
  for (int i = 0; i < 8; ++i) l[i] = static_cast<std::int8_t>((static_cast<int>((point >> (8 * i)) & 0xFF) - 1) / 2);
}

// ggml's iq2_find_best_neighbour: among the off-grid key's neighbours, the grid point of the
// smallest weighted squared error at `scale` (first one on ties); its levels go to `levels`.
// Returns -1 where ggml asserts: no error compares below FLT_MAX (overflowed sums).
int best_neighbour(int key, const float* xval, const float* weight, float scale, std::int8_t* levels) {
  const NeighbourList list = neighbours_of(kIq2sMaps, key);
  const int count = list.size();
  // scale * q for the grid bytes q = 1, 3, 5 (index q >> 1): the products ggml forms per neighbour.
  const float scaled[3] = {scale * 1.f, scale * 3.f, scale * 5.f};
  float best_d2 = FLT_MAX;
  int best = -1;
  for (int j = 0; j < count; ++j) {
    const int index = list[j];
    const std::uint64_t point = kIq2sMaps.grid[index];
    // ggml sums from 0; 0 + a differs from a only in the sign of a zero, which `<` cannot see.
    float e = scaled[(point >> 1) & 3u] - xval[0];
    float d2 = weight[0] * e * e;
    for (int i = 1; i < 8; ++i) {
      e = scaled[(point >> (8 * i + 1)) & 3u] - xval[i];
      d2 += weight[i] * e * e;
    }
    // Strictly smaller replaces (first on ties; a NaN never does), written to compile branch-free.
    const bool better = d2 < best_d2;
    best_d2 = better ? d2 : best_d2;
    best = better ? index : best;
  }
  if (best < 0) return -1;
  levels_of(kIq2sMaps.grid[best], levels);
  return best;
}

[[noreturn]] void fail(std::size_t row, const char* what) { throw RowFailure(row, what); }

inline void round_levels(float id, const float* xval, std::int8_t* l) {
  for (int i = 0; i < 8; ++i) l[i] = static_cast<std::int8_t>(clamp_level(round_magic(0.5f * (id * xval[i] - 1)), kTopLevel));
}

// One sub-block's scale search; writes L and returns ggml's `scale`, or throws.
float search_subblock(const float* xval, const float* weight, const float* waux, float max, std::int8_t* L,
                      std::size_t row) {
  std::int8_t Laux[kSubBlock];
  bool on_grid[2] = {true, true};
  bool on_grid_aux[2];
  // w * x is the same float in every candidate's sum: computed once.
  float wx[kSubBlock];
  for (int i = 0; i < kSubBlock; ++i) wx[i] = weight[i] * xval[i];

  float best = 0;
  float scale = max / (2 * kTopLevel + 1);
  for (int is = -9; is <= 9; ++is) {
    const float id = (static_cast<float>(2 * kTopLevel + 1) + static_cast<float>(is) * 0.1f) / max;
    const float this_scale = 1 / id;
    for (int k = 0; k < 2; ++k) {
      round_levels(id, xval + 8 * k, Laux + 8 * k);
      const int key = key_of(Laux + 8 * k);
      on_grid_aux[k] = true;
      if (kIq2sMaps.map[key] < 0) {
        on_grid_aux[k] = false;
        if (best_neighbour(key, xval + 8 * k, waux + 8 * k, this_scale, Laux + 8 * k) < 0) {
          fail(row, "IQ2_S quantization: no grid point found (squared sums overflow)");
        }
      }
    }
    float sumqx = 0, sumq2 = 0;
    for (int i = 0; i < kSubBlock; ++i) {
      const float w = weight[i];
      const float q = static_cast<float>(2 * Laux[i] + 1);
      sumqx += wx[i] * q;
      sumq2 += w * q * q;
    }
    if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
      scale = sumqx / sumq2;
      best = scale * sumqx;
      std::memcpy(L, Laux, kSubBlock);
      on_grid[0] = on_grid_aux[0];
      on_grid[1] = on_grid_aux[1];
    }
  }
  if ((!on_grid[0] || !on_grid[1]) && scale > 0) {
    // Requantize the off-grid points at the chosen scale.
    const float id = 1 / scale;
    for (int k = 0; k < 2; ++k) {
      if (on_grid[k]) continue;
      round_levels(id, xval + 8 * k, L + 8 * k);
      const int key = key_of(L + 8 * k);
      if (kIq2sMaps.map[key] < 0 && best_neighbour(key, xval + 8 * k, waux + 8 * k, scale, L + 8 * k) < 0) {
        fail(row, "IQ2_S quantization: no grid point found (squared sums overflow)");
      }
    }
    float sumqx = 0, sumq2 = 0;
    for (int i = 0; i < kSubBlock; ++i) {
      const float w = weight[i];
      const float q = static_cast<float>(2 * L[i] + 1);
      sumqx += wx[i] * q;
      sumq2 += w * q * q;
    }
    if (sumq2 > 0) scale = sumqx / sumq2;
  }
  return scale;
}

void quantize_block(const float* xbl, const float* qwbl, std::uint8_t* out, std::size_t row) {
  std::uint8_t block[kBlockBytes] = {};
  std::uint8_t* const qs = block + 2;       // low 8 bits of the 32 grid indices
  std::uint8_t* const signs = block + 34;   // one sign byte per grid point
  std::uint8_t* const qh = block + 66;      // bits 8-9 of the grid indices, 4 per byte
  std::uint8_t* const scales4 = block + 74; // two 4-bit sub-block scales per byte
  float scales[kSubBlocks];
  float weight[kSubBlock], waux[kSubBlock], xval[kSubBlock];
  std::int8_t L[kSubBlock];
  std::uint8_t block_signs[2];

  float sumx2 = 0;
  for (int i = 0; i < kSuperBlock; ++i) sumx2 += xbl[i] * xbl[i];
  const float sigma2 = 2 * sumx2 / kSuperBlock;

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
    for (int k = 0; k < 2; ++k) {
      unsigned s = 0;
      for (int i = 0; i < 8; ++i) {
        const float v = xb[8 * k + i];
        if (v >= 0) {
          xval[8 * k + i] = v;
        } else {
          xval[8 * k + i] = -v;
          s |= 1u << i;
        }
      }
      block_signs[k] = static_cast<std::uint8_t>(s);
    }
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
      const int index = kIq2sMaps.map[key_of(L + 8 * k)];
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
      const int l = clamp_level(round_magic(0.5f * (id * scales[ib] - 1)), 15);
      scales4[ib / 2] = static_cast<std::uint8_t>(ib % 2 == 0 ? l : (scales4[ib / 2] | (l << 4)));
    }
  }
  // With max_scale == 0 ggml leaves d = +0 but keeps any indices and signs already written.
  std::memcpy(out, block, kBlockBytes);
}

}  // namespace

void quantize_iq2_s(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row,
                    const float* importance) {
  const std::size_t nblocks = n_per_row / kSuperBlock;
  for (std::size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n_per_row;
    std::uint8_t* out = dst + r * nblocks * kBlockBytes;
    for (std::size_t b = 0; b < nblocks; ++b) {
      quantize_block(xr + b * kSuperBlock, importance ? importance + b * kSuperBlock : nullptr, out + b * kBlockBytes, r);
    }
  }
}

}  // namespace onnxq::quantize
