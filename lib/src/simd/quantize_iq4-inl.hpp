// The IQ4 quantizers (iq4_nl, iq4_xs), written once over the 16-lane vector layer and compiled per
// ISA: include a vec_<isa>.hpp and the lane operations listed below first (see
// simd/<isa>/quantize_iq4.cpp). They write the bytes of the scalar reference (quantize/iq4.cpp) on
// every input, with or without importance.
//
// How the lanes stay exact. The expensive part is each 32-value block's scale search: 16 trial
// scales, each a pass over the block with a codebook look-up and two float sums. There a lane is one
// block: the values of 16 blocks are transposed so that vector j holds value j of every block, and
// each lane runs its block's scalar operations in the scalar order (the sums add value 0, 1, 2, ...;
// products and sums are separate roundings, -ffp-contract=off; divisions and square roots are the
// IEEE ones; each branch becomes a select with the same outcome, NaN included). The rest (the
// iq4_xs super-block scale, the final levels, the packing) runs per block or per value, where each
// value is its own scalar expression.
//
// The codebook look-up (ggml's best_index_int8: the nearer of the two bracketing values by float
// differences, the upper one on a tie) is, for every float x, the number of thresholds T_i <= x:
// within [v_i, v_i+1) the test fl(x - v_i) < fl(v_i+1 - x) is true below some float and false from
// it on (both sides are monotone in x), and T_i is that float, found once by running the same test
// (for ggml's codebook each T_i comes out as the exact midpoint of its two values).
// A 4-step bisection over the 15 sorted thresholds counts them; NaN (every scalar test false) gives 15.
//
// Lane operations expected besides the shared layer: VM, vf_load, operator/, vf_sqrt, vf_abs,
// vf_neg, lt, gt, ge, ne, VM &, sel (VF, VI), lookup8f, lookup16f, vi_store, low_bytes, store16, half_bits,
// as_i, VI |.
#ifndef ONNXQ_SIMD_NS
#error "include simd/vec_<isa>.hpp first"
#endif

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

#include "formats/codebooks.hpp"
#include "formats/format_rows.hpp"
#include "quantize/kernels.hpp"
#include "quantize/rounding.hpp"
#include "quantize/scale_search.hpp"
#include "simd/quantize_kernels.hpp"
#include "simd/quantize_nan-inl.hpp"

namespace onnxq::simd::ONNXQ_SIMD_NS {
namespace {

namespace qi {

constexpr int kBlock = 32;
constexpr int kLanes = 16;
constexpr int kTries = 7;
constexpr int kFits = 2 * kTries + 2;
constexpr float kAllZero = 1e-15f;  // ggml's GROUP_MAX_EPS

// The codebook as floats and the 15 switch points between neighbours (see the top of the file).
struct Tables {
  alignas(64) float v[16];
  alignas(64) float t[16];  // t[15] is never read by the bisection
  // The thresholds the bisection's last two steps can reach: t[1], t[5], t[9], t[13] (step 3,
  // index / 4) and t[0], t[2], ..., t[14] (step 4, index / 2), so that each is an 8-entry look-up.
  alignas(64) float t_step3[8], t_step4[8];
  Tables() {
    for (int i = 0; i < 16; ++i) v[i] = static_cast<float>(formats::kKvaluesIq4nl[i]);
    for (int i = 0; i < 15; ++i) {
      const float a = v[i], b = v[i + 1];
      // The scalar test; volatile keeps each difference a float32 rounding.
      auto lower = [&](float x) {
        volatile float da = x - a, db = b - x;
        return da < db;
      };
      float x = (a + b) * 0.5f;  // exact (small integers); the test is false there (equal halves)
      for (float below = std::nextafter(x, a); !lower(below); below = std::nextafter(x, a)) x = below;
      t[i] = x;
    }
    t[15] = std::numeric_limits<float>::infinity();
    for (int i = 0; i < 8; ++i) {
      t_step3[i] = t[i < 4 ? 4 * i + 1 : 15];
      t_step4[i] = t[2 * i];
    }
  }
};
// Built on first use: a global's constructor in this file would run at start-up, compiled with
// this ISA's flags, on any CPU.
inline const Tables& tables() {
  static const Tables t;
  return t;
}

// ggml's best_index_int8 for 16 lanes, x not NaN: the count of thresholds <= x, by bisection
// (steps of 8, 4, 2, 1 over the 15 sorted thresholds).
inline VI nearest_index_ordered(const Tables& tb, VF x) {
  const VM upper = ge(x, vf_set1(tb.t[7]));
  VI idx = sel(upper, vi_set1(8), vi_set1(0));
  idx = sel(ge(x, sel(upper, vf_set1(tb.t[11]), vf_set1(tb.t[3]))), idx + vi_set1(4), idx);  // t[idx + 3]
  idx = sel(ge(x, lookup8f(tb.t_step3, srli<2>(idx))), idx + vi_set1(2), idx);               // t[idx + 1]
  return sel(ge(x, lookup8f(tb.t_step4, srli<1>(idx))), idx + vi_set1(1), idx);              // t[idx]
}
// ggml's best_index_int8 for 16 lanes (NaN fails every test of the scalar code: 15).
inline VI nearest_index(const Tables& tb, VF x) { return sel(ne(x, x), vi_set1(15), nearest_index_ordered(tb, x)); }

// Lane k of out[j] is src[k][j].
inline void transpose(const float* const* src, VF* out) {
  alignas(64) float t[kBlock * kLanes];
  for (int k = 0; k < kLanes; ++k)
    for (int j = 0; j < kBlock; ++j) t[j * kLanes + k] = src[k][j];
  for (int j = 0; j < kBlock; ++j) out[j] = vf_load(t + j * kLanes);
}

// The scales of 16 blocks (iq4.cpp's block_scale, lane k = block k). qw[k] null for every lane or
// none; sigma2 is each lane's row variance (used only with importance).
inline VF block_scales(const Tables& tb, const float* const* xb, const float* const* qw, VF sigma2) {
  VF x[kBlock], w[kBlock];
  transpose(xb, x);
  if (qw[0]) {
    transpose(qw, w);
    for (int j = 0; j < kBlock; ++j) w[j] = x86_nan(w[j] * vf_sqrt(sigma2 + x[j] * x[j]), w[j], sigma2, x[j]);
  } else {
    for (int j = 0; j < kBlock; ++j) w[j] = x[j] * x[j];
  }
  VF amax = vf_set1(0.0f), max = vf_set1(0.0f);
  for (int j = 0; j < kBlock; ++j) {
    const VF ax = vf_abs(x[j]);
    const VM bigger = gt(ax, amax);
    amax = sel(bigger, ax, amax);
    max = sel(bigger, x[j], max);
  }
  const float v0 = tb.v[0];
  VF ids[kFits];
  ids[0] = vf_set1(1.0f) / (vf_neg(max) / vf_set1(v0));
  for (int t = -kTries; t <= kTries; ++t)
    ids[1 + kTries + t] = vf_set1(static_cast<float>(t + formats::kKvaluesIq4nl[0])) / max;
  VF sumqx[kFits], sumq2[kFits];
  for (int f = 0; f < kFits; ++f) sumqx[f] = sumq2[f] = vf_set1(0.0f);
  for (int j = 0; j < kBlock; ++j) {
    for (int f = 0; f < kFits; ++f) {
      // No NaN here but in all-zero lanes, whose result is dropped: |ids * x| <= 134 elsewhere.
      const VF q = lookup16f(tb.v, nearest_index_ordered(tb, ids[f] * x[j]));
      const VF wq = w[j] * q;
      // Overflowed weights and sums (0 * inf, inf - inf): x86's NaN, as in iq4.cpp.
      sumqx[f] = x86_nan(sumqx[f] + wq * x[j], sumqx[f], w[j], x[j]);
      sumq2[f] = x86_nan(sumq2[f] + wq * q, sumq2[f], w[j]);
    }
  }
  const VF zero = vf_set1(0.0f);
  VF d = sel(gt(sumq2[0], zero), x86_nan(sumqx[0] / sumq2[0], sumqx[0], sumq2[0]), zero);
  VF best = d * sumqx[0];
  for (int f = 1; f < kFits; ++f) {
    const VM better = gt(sumq2[f], zero) & gt(sumqx[f] * sumqx[f], best * sumq2[f]);
    d = sel(better, x86_nan(sumqx[f] / sumq2[f], sumqx[f], sumq2[f]), d);
    best = sel(better, d * sumqx[f], best);
  }
  return sel(lt(amax, vf_set1(kAllZero)), zero, d);
}

// 32 levels nearest(id * x) of one block, packed two per byte (element j and j + 16 share byte j,
// low nibble first).
inline void pack_block(const Tables& tb, const float* xb, float id, std::uint8_t* qs) {
  const VF s = vf_set1(id);
  const VB lo = low_bytes(nearest_index(tb, s * vf_load(xb))), hi = low_bytes(nearest_index(tb, s * vf_load(xb + 16)));
  store16(qs, or_bytes(lo, shl_bytes<4>(hi)));
}

// ggml_half of 16 floats (the IEEE binary16; NaN becomes sign | 0x7E00).
inline VI ggml_half16(VF v) {
  const VI nan = srli<16>(as_i(v)) & vi_set1(0x8000);
  return sel(ne(v, v), nan | vi_set1(0x7E00), half_bits(v));
}

inline float sum_squares(const float* x, int n) {
  float s = 0.0f;
  for (int j = 0; j < n; ++j) s += x[j] * x[j];
  return s;
}

// ---------------------------------------------------------------- iq4_nl (18 bytes: d, qs[16])

void iq4_nl_rows(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row, const float* importance) {
  constexpr std::size_t kBytes = formats::row(formats::FormatId::iq4_nl).block_bytes;
  const Tables& tb = tables();
  const std::size_t nb = n_per_row / kBlock, blocks = rows * nb;
  std::size_t b = 0;
  for (; b + kLanes <= blocks; b += kLanes) {
    const float* xb[kLanes];
    const float* qw[kLanes];
    alignas(64) float sigma2[kLanes], d[kLanes];
    for (int k = 0; k < kLanes; ++k) {
      xb[k] = x + (b + k) * kBlock;
      qw[k] = importance ? importance + (b + k) % nb * kBlock : nullptr;
      sigma2[k] = importance ? sum_squares(xb[k], kBlock) * (2.0f / static_cast<float>(kBlock)) : 0.0f;
    }
    const VF scale = block_scales(tb, xb, qw, vf_load(sigma2));
    store_f(d, scale);
    alignas(64) std::int32_t h[kLanes];
    vi_store(h, ggml_half16(scale));
    for (int k = 0; k < kLanes; ++k) {
      std::uint8_t* out = dst + (b + k) * kBytes;
      quantize::detail::store_u16(out, static_cast<std::uint32_t>(h[k]));
      pack_block(tb, xb[k], d[k] != 0.0f ? 1.0f / d[k] : 0.0f, out + 2);
    }
  }
  for (; b < blocks; ++b)  // the last blocks, one at a time through the reference
    quantize::quantize_iq4_nl(x + b * kBlock, dst + b * kBytes, 1, kBlock,
                              importance ? importance + b % nb * kBlock : nullptr);
}

// ---------------------------------------------------------------- iq4_xs (136 bytes)

// One super-block from its 8 block scales (iq4.cpp's iq4_xs_block after the searches).
inline void iq4_xs_finish(const Tables& tb, const float* x, const float* scales, std::uint8_t* b) {
  float max_scale = 0.0f, amax_scale = 0.0f;
  for (int ib = 0; ib < 8; ++ib) {
    const float a = std::fabs(scales[ib]);
    if (a > amax_scale) {
      amax_scale = a;
      max_scale = scales[ib];
    }
  }
  const float d = -max_scale / 32.0f;
  quantize::detail::store_half(b, d);
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  std::uint32_t scales_h = 0;
  for (int ib = 0; ib < 8; ++ib) {
    int s = quantize::nearest_int(id * scales[ib]);
    s = s < 31 ? s : 31;
    s = s > -32 ? s : -32;
    const float dl = d * static_cast<float>(s);
    pack_block(tb, x + kBlock * ib, dl != 0.0f ? 1.0f / dl : 0.0f, b + 8 + 16 * ib);
    const unsigned biased = static_cast<unsigned>(s + 32);
    if (ib % 2 == 0)
      b[4 + ib / 2] = static_cast<std::uint8_t>(biased & 15);
    else
      b[4 + ib / 2] = static_cast<std::uint8_t>(b[4 + ib / 2] | ((biased & 15) << 4));
    scales_h |= (biased >> 4) << (2 * ib);
  }
  quantize::detail::store_u16(b + 2, scales_h);
}

void iq4_xs_rows(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row, const float* importance) {
  constexpr std::size_t kSuper = formats::row(formats::FormatId::iq4_xs).block_elements;
  constexpr std::size_t kBytes = formats::row(formats::FormatId::iq4_xs).block_bytes;
  static_assert(kSuper == 8 * kBlock);
  const Tables& tb = tables();
  const std::size_t nsb = n_per_row / kSuper, supers = rows * nsb;
  std::size_t s = 0;
  for (; s + 2 <= supers; s += 2) {  // two super-blocks: 16 blocks, one per lane
    const float* xb[kLanes];
    const float* qw[kLanes];
    alignas(64) float sigma2[kLanes], scales[kLanes];
    float sig[2] = {0.0f, 0.0f};
    if (importance) {
      // Each super-block's sum of squares in order, the two chains side by side.
      const float* x0 = x + s * kSuper;
      const float* x1 = x0 + kSuper;
      float s0 = 0.0f, s1 = 0.0f;
      for (std::size_t j = 0; j < kSuper; ++j) {
        s0 += x0[j] * x0[j];
        s1 += x1[j] * x1[j];
      }
      sig[0] = s0 * (2.0f / static_cast<float>(kSuper));
      sig[1] = s1 * (2.0f / static_cast<float>(kSuper));
    }
    for (int k = 0; k < kLanes; ++k) {
      const std::size_t sb = s + static_cast<std::size_t>(k / 8);
      xb[k] = x + sb * kSuper + static_cast<std::size_t>(k % 8) * kBlock;
      qw[k] = importance ? importance + sb % nsb * kSuper + static_cast<std::size_t>(k % 8) * kBlock : nullptr;
      sigma2[k] = sig[k / 8];
    }
    store_f(scales, block_scales(tb, xb, qw, vf_load(sigma2)));
    iq4_xs_finish(tb, x + s * kSuper, scales, dst + s * kBytes);
    iq4_xs_finish(tb, x + (s + 1) * kSuper, scales + 8, dst + (s + 1) * kBytes);
  }
  if (s < supers)
    quantize::quantize_iq4_xs(x + s * kSuper, dst + s * kBytes, 1, kSuper,
                              importance ? importance + s % nsb * kSuper : nullptr);
}

using formats::FormatId;
constexpr QuantizeKernel kTable[] = {
    {formats::row(FormatId::iq4_nl).index, &iq4_nl_rows},
    {formats::row(FormatId::iq4_xs).index, &iq4_xs_rows},
};

}  // namespace qi

}  // namespace

std::span<const QuantizeKernel> iq4_quantizers() { return qi::kTable; }

}  // namespace onnxq::simd::ONNXQ_SIMD_NS
