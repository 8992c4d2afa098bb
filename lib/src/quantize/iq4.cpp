// Quantizers of the non-linear 4-bit formats iq4_nl (32 values, one binary16 scale) and iq4_xs
// (256 values, a binary16 scale and eight 6-bit sub-scales) (spec §7), equal byte for byte to
// ggml_quantize_chunk (quantize_iq4_nl / quantize_iq4_xs). Both search each 32-value block's scale
// over 15 trial scales (ggml's ntry = 7), with or without importance. Note that quantize_iq4_nl
// differs from quantize_row_iq4_nl_ref (ntry = -1); this file follows the chunk function.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "formats/codebooks.hpp"
#include "quantize/kernels.hpp"
#include "quantize/rounding.hpp"
#include "quantize/scale_search.hpp"

namespace onnxq::quantize {

namespace {

using detail::store_half;
using detail::store_u16;
using detail::x86_nan;

constexpr int kBlock = 32;
constexpr int kTries = 7;           // trial scales (values[0] + t) / max for t = -7..7
constexpr float kAllZero = 1e-15f;  // ggml's GROUP_MAX_EPS

// The codebook as floats (exact: the comparisons below are the float ones of ggml's
// best_index_int8, whose int8 operands C converts to float), and for each integer k in
// [v[0], v[15]) the index of the first value above k. The values are integers, so that is also the
// first value above any x in [k, k + 1).
struct Codebook {
  float v[16];
  std::uint8_t upper[256];
  Codebook() {
    for (std::size_t i = 0; i < 16; ++i) v[i] = static_cast<float>(formats::kKvaluesIq4nl[i]);
    const int lo = formats::kKvaluesIq4nl[0], hi = formats::kKvaluesIq4nl[15];
    for (int k = lo; k < hi; ++k) {
      std::size_t u = 1;
      while (formats::kKvaluesIq4nl[u] <= k) ++u;
      upper[k - lo] = static_cast<std::uint8_t>(u);
    }
  }
};
const Codebook kCodebook;

// ggml's best_index_int8 over the 16 sorted values: the clamps (NaN, failing every comparison,
// ends on 15 in ggml's bisection too), then hi with v[hi-1] <= x < v[hi] (where the bisection ends;
// here from floor(x) and the table), then the nearer of the two, the upper on a tie, by ggml's
// float differences.
inline int nearest_level(float x) {
  const float* v = kCodebook.v;
  if (x <= v[0]) return 0;
  if (!(x < v[15])) return 15;
  int k = static_cast<int>(x);  // |x| < 128: truncation, then floor
  k -= x < static_cast<float>(k) ? 1 : 0;
  const int hi = kCodebook.upper[k - static_cast<int>(v[0])];
  return x - v[hi - 1] < v[hi] - x ? hi - 1 : hi;
}

// The scale of one 32-value block (0 for an all-zero block), ggml's search with ntry = 7: a first
// fit at d = -max / v[0], then 15 trial inverse scales (t + v[0]) / max, t = -7..7, each kept when
// its weighted fit is strictly better. The 16 fits' sums (sum w q x and sum w q^2, each in ggml's
// order over j: ((w q) x), ((w q) q)) are accumulated side by side, since each is a serial chain of
// float additions; the decisions then run in ggml's order.
inline float block_scale(const float* xb, const float* qw, float sigma2) {
  constexpr int kFits = 2 * kTries + 2;
  float w[kBlock];
  if (qw) {
    for (int j = 0; j < kBlock; ++j) w[j] = x86_nan(qw[j] * std::sqrt(sigma2 + xb[j] * xb[j]), qw[j], sigma2, xb[j]);
  } else {
    for (int j = 0; j < kBlock; ++j) w[j] = xb[j] * xb[j];
  }
  float amax = 0.0f, max = 0.0f;
  for (int j = 0; j < kBlock; ++j) {
    const float ax = std::fabs(xb[j]);
    if (ax > amax) {
      amax = ax;
      max = xb[j];
    }
  }
  if (amax < kAllZero) return 0.0f;
  const float v0 = kCodebook.v[0];
  float ids[kFits];
  ids[0] = 1.0f / (-max / v0);
  for (int t = -kTries; t <= kTries; ++t) ids[1 + kTries + t] = static_cast<float>(t + formats::kKvaluesIq4nl[0]) / max;
  // Huge values overflow the weights and sums (0 * inf, inf - inf): a NaN made there is x86's
  // (x86_nan), which the scale keeps. The later fits replace d only when their sums compare better,
  // which NaN sums never do.
  float sumqx[kFits] = {}, sumq2[kFits] = {};
  for (int j = 0; j < kBlock; ++j) {
    for (int f = 0; f < kFits; ++f) {
      const float q = kCodebook.v[nearest_level(ids[f] * xb[j])];
      sumqx[f] = x86_nan(sumqx[f] + w[j] * q * xb[j], sumqx[f], w[j], xb[j]);
      sumq2[f] = x86_nan(sumq2[f] + w[j] * q * q, sumq2[f], w[j]);
    }
  }
  float d = sumq2[0] > 0.0f ? x86_nan(sumqx[0] / sumq2[0], sumqx[0], sumq2[0]) : 0.0f;
  float best = d * sumqx[0];
  for (int f = 1; f < kFits; ++f) {
    if (sumq2[f] > 0.0f && sumqx[f] * sumqx[f] > best * sumq2[f]) {
      d = x86_nan(sumqx[f] / sumq2[f], sumqx[f], sumq2[f]);  // inf / inf
      best = d * sumqx[f];
    }
  }
  return d;
}

// Element j and j + 16 of each 32 share a byte, low nibble first.
inline void pack_levels(const std::uint8_t* l, int n, std::uint8_t* qs) {
  for (int i = 0; i < n / 32; ++i)
    for (int j = 0; j < 16; ++j) qs[16 * i + j] = static_cast<std::uint8_t>(l[32 * i + j] | (l[32 * i + 16 + j] << 4));
}

inline float sigma2_of(const float* x, int n) {
  float s = 0.0f;
  for (int j = 0; j < n; ++j) s += x[j] * x[j];
  return s * (2.0f / static_cast<float>(n));
}

// iq4_nl (18 bytes: d, qs[16]).
void iq4_nl_block(const float* x, const float* qw, std::uint8_t* b) {
  const float d = block_scale(x, qw, sigma2_of(x, kBlock));
  store_half(b, d);
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  std::uint8_t l[kBlock];
  for (int j = 0; j < kBlock; ++j) l[j] = static_cast<std::uint8_t>(nearest_level(id * x[j]));
  pack_levels(l, kBlock, b + 2);
}

// iq4_xs (136 bytes: d, scales_h (2 bytes, 2 bits per block), scales_l[4] (4 bits per block),
// qs[128]): the blocks' scales quantized to l = nearest(scale / d) in [-32, 31] with
// d = -(the scale of largest magnitude) / 32, stored as l + 32; levels refit to d * l.
void iq4_xs_block(const float* x, const float* qw, std::uint8_t* b) {
  const float sigma2 = sigma2_of(x, 256);
  float scales[8];
  float max_scale = 0.0f, amax_scale = 0.0f;
  for (int ib = 0; ib < 8; ++ib) {
    scales[ib] = block_scale(x + kBlock * ib, qw ? qw + kBlock * ib : nullptr, sigma2);
    const float a = std::fabs(scales[ib]);
    if (a > amax_scale) {
      amax_scale = a;
      max_scale = scales[ib];
    }
  }
  const float d = -max_scale / 32.0f;
  store_half(b, d);
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  std::uint32_t scales_h = 0;
  std::uint8_t* scales_l = b + 4;
  std::uint8_t l[256];
  for (int ib = 0; ib < 8; ++ib) {
    int s = nearest_int(id * scales[ib]);
    s = s < 31 ? s : 31;
    s = s > -32 ? s : -32;
    const float dl = d * static_cast<float>(s);
    const float idl = dl != 0.0f ? 1.0f / dl : 0.0f;
    const float* xb = x + kBlock * ib;
    for (int j = 0; j < kBlock; ++j) l[kBlock * ib + j] = static_cast<std::uint8_t>(nearest_level(idl * xb[j]));
    const unsigned biased = static_cast<unsigned>(s + 32);
    if (ib % 2 == 0)
      scales_l[ib / 2] = static_cast<std::uint8_t>(biased & 15);
    else
      scales_l[ib / 2] = static_cast<std::uint8_t>(scales_l[ib / 2] | ((biased & 15) << 4));
    scales_h |= (biased >> 4) << (2 * ib);
  }
  store_u16(b + 2, scales_h);
  pack_levels(l, 256, b + 8);
}

}  // namespace

void quantize_iq4_nl(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row,
                     const float* importance) {
  const std::size_t nb = n_per_row / kBlock;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t ib = 0; ib < nb; ++ib)
      iq4_nl_block(x + r * n_per_row + ib * kBlock, importance ? importance + ib * kBlock : nullptr,
                   dst + (r * nb + ib) * 18);
}

void quantize_iq4_xs(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row,
                     const float* importance) {
  const std::size_t nb = n_per_row / 256;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t ib = 0; ib < nb; ++ib)
      iq4_xs_block(x + r * n_per_row + ib * 256, importance ? importance + ib * 256 : nullptr,
                   dst + (r * nb + ib) * 136);
}

}  // namespace onnxq::quantize
