// The quantizers of the 32-element formats (q4_0, q4_1, q5_0, q5_1, q8_0, q8_1), written once over the 16-lane vector
// layer and compiled per ISA: include a vec_<isa>.hpp and the lane operations listed below first (see
// simd/<isa>/quantize_legacy.cpp). They write the bytes of the scalar reference (quantize/legacy.cpp) on every input.
//
// How the lanes stay exact. Without importance (round to nearest) the blocks go in groups of 16,
// in three steps:
//  1. the 16 blocks' reductions (largest magnitude, minimum, maximum) at once, lane k = block k
//     (lane_maxima, lane_minima): max and min are exact in any order, and where the scalar code keeps
//     the FIRST value of a tie (the sign of the largest magnitude when a and -a both reach it; the
//     sign of a zero minimum or maximum) that block is looked up;
//  2. the 16 blocks' scale arithmetic (d = .../15, id = 1/d, the binary16 of d and of the minimum)
//     with lane k = block k: each lane runs its block's scalar operations, IEEE divisions included;
//  3. per block, the levels of its 32 values with the block's id broadcast: every value is its own
//     scalar expression (a product, a sum, a truncation as x86's cvttss2si gives it), then packed.
// -ffp-contract=off keeps every product and sum a separate rounding. Blocks that do not fill a
// group go to the reference kernel.
//
// With importance, q4_0 / q5_0 (make_qx_quants) and q4_1 / q5_1 (make_qkx3_quants) search each
// block's scale; there a lane is one block (16 blocks transposed), running its search's scalar
// operations in the scalar order, each branch a select with the same outcome.
//
// Lane operations expected besides the shared layer: VM, vf_load, operator/, vf_sqrt, vf_abs,
// vf_neg, vf_max, vf_min, vf_copysign, lane_maxima, lane_minima, eq, ne, unordered, lt, gt, le,
// VM & and |, any, lane_bits, sel (VF, VI),
// vi_min, vi_max, trunc_x86, half_bits, vi_store, low_bytes, min_s8, bit4_mask, store16, hsum.
#ifndef ONNXQ_SIMD_NS
#error "include simd/vec_<isa>.hpp first"
#endif

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "formats/format_rows.hpp"
#include "quantize/kernels.hpp"
#include "simd/quantize_kernels.hpp"
#include "simd/quantize_nan-inl.hpp"

namespace onnxq::simd::ONNXQ_SIMD_NS {
namespace {

namespace ql {

using formats::FormatId;

constexpr int kQk = 32;
constexpr int kGroup = 16;  // blocks per group: one lane each in step 2

// A format's block bytes, from the format rows.
template <FormatId Id>
constexpr std::size_t kBytesOf = formats::row(Id).block_bytes;

// ggml_half of 16 floats: the IEEE binary16 (round to nearest even, subnormals, overflow to inf),
// except NaN, which becomes sign | 0x7E00 (ggml drops the payload).
inline VI ggml_half16(VF v) {
  const VI nan = srli<16>(as_i(v)) & vi_set1(0x8000);
  return sel(ne(v, v), nan | vi_set1(0x7E00), half_bits(v));
}

// Writes the 16 halves of h to p, p + stride, ... (a field of 16 consecutive blocks).
inline void scatter_u16(std::uint8_t* p, std::size_t stride, VI h) {
  alignas(64) std::int32_t t[kGroup];
  vi_store(t, h);
  for (int k = 0; k < kGroup; ++k) {
    p[k * stride] = static_cast<std::uint8_t>(t[k]);
    p[k * stride + 1] = static_cast<std::uint8_t>(t[k] >> 8);
  }
}

// d != 0 ? 1/d : 0, lane by lane (a NaN d gives 1/NaN, as C's != is true on NaN).
inline VF inverse_or_zero(VF d) { return sel(ne(d, vf_set1(0.0f)), vf_set1(1.0f) / d, vf_set1(0.0f)); }

// The value of the first lane of x[0..31] equal to v; v itself when none is (v a NaN: a row the
// kernel refuses, so no read may leave the block).
inline float first_equal(const float* x, VF lo, VF hi, float v) {
  const std::uint32_t m = lane_bits(eq(lo, vf_set1(v))) | (lane_bits(eq(hi, vf_set1(v))) << 16);
  return m != 0 ? x[std::countr_zero(m)] : v;
}

// The low bytes of 32 levels, as 16 packed bytes: element j and j + 16 share byte j, low
// nibble first (the low byte keeps its high nibble: a wrapped negative level survives the OR as in
// ggml; the high one contributes its low nibble only).
inline VB nibbles(VB lo, VB hi) { return or_bytes(lo, shl_bytes<4>(nib_lo(hi))); }

// The low byte of x86's truncation of each value (x86_trunc_u8 of rounding.hpp).
inline VB trunc_bytes(VF v) { return low_bytes(trunc_x86(v)); }

// Packs 32 level bytes (values 0..15, then 16..31) of a 4-bit block (nibbles) or a 5-bit one (the
// qh word of bit 4, then nibbles) at b.
template <int kBits>
inline void pack_levels(VB l0, VB l1, std::uint8_t* b) {
  if constexpr (kBits == 4) {
    store16(b, nibbles(l0, l1));
  } else {
    const std::uint32_t qh = bit4_mask(l0) | (bit4_mask(l1) << 16);
    for (int i = 0; i < 4; ++i) b[i] = static_cast<std::uint8_t>(qh >> (8 * i));
    store16(b + 4, or_bytes(nib_lo(l0), shl_bytes<4>(nib_lo(l1))));
  }
}

// A block's two halves of values, 0..15 and 16..31.
struct Half2 {
  VF lo, hi;
};
inline Half2 load_block(const float* xb) { return {vf_load(xb), vf_load(xb + 16)}; }

// The groups check the values as they reduce them (QuantizeKernel::checks_finite) and say whether
// one was not finite: a NaN makes its block's two vectors unordered, and an infinity is its block's
// largest magnitude. Until the rows are refused a NaN or an infinity only makes bytes: no value
// indexes memory here.
inline bool any_non_finite(VM nan, VF amax) { return any(nan | eq(amax, vf_set1(INFINITY))); }

// Throws NonFiniteInput unless x[0..n) is finite (all_finite: quantize_finite-inl.hpp).
inline void refuse_non_finite(const float* x, std::size_t n) {
  if (!all_finite(x, n)) throw NonFiniteInput{};
}

// ---------------------------------------------------------------- q8_0, q8_1

// roundf to a byte: v + copysign(0.49999997, v) truncated is roundf below 2^23 (rounding.hpp); from
// 2^23 on the sum rounds back to v, an integer already, so the scalar code's select is not needed.
inline VB round_away_bytes(VF v) { return trunc_bytes(v + vf_copysign(vf_set1(0.49999997f), v)); }

// d = amax / 127, id = 1/d; q = roundf(x * id). q8_1 adds the binary16 of (float)(sum q) * d.
template <FormatId Id>
bool q8_group(const float* x, std::uint8_t* dst) {
  constexpr bool kSum = Id == FormatId::q8_1;
  constexpr std::size_t kBytes = kBytesOf<Id>, kQs = kSum ? 4 : 2;
  alignas(64) float ids[kGroup];
  alignas(64) std::int32_t sums[kGroup];
  VF amax[kGroup];
  VM nan = unordered(vf_set1(0.0f), vf_set1(0.0f));  // none
  for (int k = 0; k < kGroup; ++k) {
    const Half2 v = load_block(x + k * kQk);
    amax[k] = vf_max(vf_abs(v.lo), vf_abs(v.hi));
    nan = nan | unordered(v.lo, v.hi);
  }
  const VF block_amax = lane_maxima(amax);
  const VF d = block_amax / vf_set1(127.0f);
  store_f(ids, inverse_or_zero(d));
  for (int k = 0; k < kGroup; ++k) {
    const Half2 v = load_block(x + k * kQk);
    const VF id = vf_set1(ids[k]);
    const VB q0 = round_away_bytes(v.lo * id), q1 = round_away_bytes(v.hi * id);
    std::uint8_t* q = dst + k * kBytes + kQs;
    store16(q, q0);
    store16(q + 16, q1);
    if constexpr (kSum) sums[k] = hsum(vi_i8(q0) + vi_i8(q1));  // int sums: any order
  }
  scatter_u16(dst, kBytes, ggml_half16(d));
  if constexpr (kSum) scatter_u16(dst + 2, kBytes, ggml_half16(to_f(vi_load(sums)) * d));
  return any_non_finite(nan, block_amax);
}

// ---------------------------------------------------------------- q4_0, q5_0, q4_1, q5_1

// The 16 blocks' maxima and minima (lane k = block k) and whether a block held a NaN.
struct GroupExtremes {
  VF max, min;
  VM nan;
};
inline GroupExtremes group_extremes(const float* x) {
  VF maxs[kGroup], mins[kGroup];
  VM nan = unordered(vf_set1(0.0f), vf_set1(0.0f));  // none
  for (int k = 0; k < kGroup; ++k) {
    const Half2 v = load_block(x + k * kQk);
    maxs[k] = vf_max(v.lo, v.hi);
    mins[k] = vf_min(v.lo, v.hi);
    nan = nan | unordered(v.lo, v.hi);
  }
  return {lane_maxima(maxs), lane_minima(mins), nan};
}

// Each block's value of largest magnitude, the first one on ties, +0 when all are zero (the scalar
// loop never replaces its initial 0 then). From each block's maximum and minimum: when only one sign
// reaches the largest magnitude that value is the answer in any order; when both do (a block
// holding a and -a) the first of them is looked up. non_finite: whether a value was not finite.
inline VF signed_absmaxima(const float* x, bool& non_finite) {
  const GroupExtremes e = group_extremes(x);
  const VF max = e.max, min = e.min, neg_min = vf_neg(min), zero = vf_set1(0.0f);
  const VF amax = vf_max(max, neg_min);
  non_finite = any_non_finite(e.nan, amax);
  VF out = sel(eq(amax, zero), zero, sel(gt(max, neg_min), max, min));
  const std::uint32_t both = lane_bits(eq(max, neg_min) & ne(amax, zero));
  if (both == 0) return out;
  alignas(64) float t[kGroup], magnitude[kGroup];
  store_f(t, out);
  store_f(magnitude, amax);
  for (std::uint32_t m = both; m != 0; m &= m - 1) {
    const int k = std::countr_zero(m);
    const Half2 v = load_block(x + k * kQk);
    t[k] = first_equal(x + k * kQk, vf_abs(v.lo), vf_abs(v.hi), magnitude[k]);
  }
  return vf_load(t);
}

// d = max / -2^(bits-1); level = (int8)(x * id + 2^(bits-1) + 1/2) capped at 2^bits - 1 (a signed
// byte minimum: a wrapped negative level stays, as in ggml).
template <FormatId Id, int kBits>
bool symmetric_group(const float* x, std::uint8_t* dst) {
  constexpr std::size_t kBytes = kBytesOf<Id>;
  constexpr float kDiv = -static_cast<float>(1 << (kBits - 1));
  constexpr float kBias = static_cast<float>(1 << (kBits - 1)) + 0.5f;
  const VB top = set1_bytes((1 << kBits) - 1);
  alignas(64) float ids[kGroup];
  bool non_finite;
  const VF d = signed_absmaxima(x, non_finite) / vf_set1(kDiv);
  store_f(ids, inverse_or_zero(d));
  for (int k = 0; k < kGroup; ++k) {
    const Half2 v = load_block(x + k * kQk);
    const VF id = vf_set1(ids[k]), bias = vf_set1(kBias);
    const VB l0 = min_s8(trunc_bytes(v.lo * id + bias), top), l1 = min_s8(trunc_bytes(v.hi * id + bias), top);
    pack_levels<kBits>(l0, l1, dst + k * kBytes + 2);
  }
  scatter_u16(dst, kBytes, ggml_half16(d));
  return non_finite;
}

// Each block's minimum and maximum as the scalar loop finds them: the first value equal to the
// extreme (only a zero's sign can differ from the vector extreme; those blocks are looked up).
// Returns whether a value was not finite.
inline bool min_max(const float* x, float* mins, float* maxs) {
  const GroupExtremes e = group_extremes(x);
  const VF zero = vf_set1(0.0f);
  store_f(mins, e.min);
  store_f(maxs, e.max);
  for (std::uint32_t m = lane_bits(eq(e.min, zero) | eq(e.max, zero)); m != 0; m &= m - 1) {
    const int k = std::countr_zero(m);
    const Half2 v = load_block(x + k * kQk);
    if (mins[k] == 0.0f) mins[k] = first_equal(x + k * kQk, v.lo, v.hi, 0.0f);
    if (maxs[k] == 0.0f) maxs[k] = first_equal(x + k * kQk, v.lo, v.hi, 0.0f);
  }
  return any_non_finite(e.nan, vf_max(e.max, vf_neg(e.min)));
}

// d = (max - min) / (2^bits - 1); level = (int8)((x - min) * id + 1/2), capped at 15 for q4_1 (a
// signed byte minimum), not for q5_1.
template <FormatId Id, int kBits>
bool affine_group(const float* x, std::uint8_t* dst) {
  constexpr std::size_t kBytes = kBytesOf<Id>;
  constexpr float kLevels = static_cast<float>((1 << kBits) - 1);
  alignas(64) float mins[kGroup], maxs[kGroup], ids[kGroup];
  const bool non_finite = min_max(x, mins, maxs);
  const VF min = vf_load(mins);
  const VF d = (vf_load(maxs) - min) / vf_set1(kLevels);
  store_f(ids, inverse_or_zero(d));
  for (int k = 0; k < kGroup; ++k) {
    const Half2 v = load_block(x + k * kQk);
    const VF id = vf_set1(ids[k]), m = vf_set1(mins[k]), half = vf_set1(0.5f);
    VB l0 = trunc_bytes((v.lo - m) * id + half), l1 = trunc_bytes((v.hi - m) * id + half);
    if constexpr (kBits == 4) {
      l0 = min_s8(l0, set1_bytes(15));
      l1 = min_s8(l1, set1_bytes(15));
    }
    pack_levels<kBits>(l0, l1, dst + k * kBytes + 4);
  }
  scatter_u16(dst, kBytes, ggml_half16(d));
  scatter_u16(dst + 2, kBytes, ggml_half16(min));
  return non_finite;
}

// ---------------------------------------------------------------- importance paths

// Each row's variance (legacy.cpp's row_sigma2): its float sum of squares in order, over its length;
// four rows side by side so that their chains of additions overlap.
inline void row_sigma2s(const float* x, std::size_t rows, std::size_t n, float* out) {
  const float fn = static_cast<float>(static_cast<std::int64_t>(n));
  std::size_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    const float* a = x + r * n;
    float s[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t i = 0; i < 4; ++i) s[i] += a[i * n + j] * a[i * n + j];
    for (std::size_t i = 0; i < 4; ++i) out[r + i] = s[i] / fn;
  }
  for (; r < rows; ++r) {
    float s = 0.0f;
    for (std::size_t j = 0; j < n; ++j) s += x[r * n + j] * x[r * n + j];
    out[r] = s / fn;
  }
}

// scale_search.cpp's nearest_int (the low mantissa bits of v + 1.5 * 2^23) and clamp_int.
inline VI round_magic(VF v) { return (as_i(v + vf_set1(12582912.f)) & vi_set1(0x007fffff)) - vi_set1(0x00400000); }
inline VI clamp(VI v, int lo, int hi) { return vi_max(vi_set1(lo), vi_min(vi_set1(hi), v)); }

// 16 blocks in lanes: x[j] and w[j] hold value j of every block and its weight
// importance * sqrt(sigma2 + x^2) (legacy.cpp's block_weights).
struct Lanes {
  VF x[kQk], w[kQk];
};
inline void load_lanes(const float* const* xb, const float* const* qw, const float* sigma2, Lanes& v) {
  alignas(64) float t[2][kQk * kGroup];
  for (int k = 0; k < kGroup; ++k)
    for (int j = 0; j < kQk; ++j) {
      t[0][j * kGroup + k] = xb[k][j];
      t[1][j * kGroup + k] = qw[k][j];
    }
  const VF s2 = vf_load(sigma2);
  for (int j = 0; j < kQk; ++j) {
    v.x[j] = vf_load(t[0] + j * kGroup);
    const VF q = vf_load(t[1] + j * kGroup);
    v.w[j] = x86_nan(q * vf_sqrt(s2 + v.x[j] * v.x[j]), q, s2, v.x[j]);  // 0 * inf: x86's NaN
  }
}

// make_qx_quants(32, nmax, x, l, 1, w) in lanes (scale_search.cpp): returns the scales and the
// inverse scale whose rounding gives each block's levels (nmax + clamp(nearest_int(iscale * x))),
// or zero where the block is all zero (levels 0 then).
template <int kNmax>
inline void symmetric_search(const Lanes& v, VF& scale_out, VF& iscale_out, VM& zero_out) {
  const VF zero = vf_set1(0.0f);
  VF amax = zero, max = zero;
  for (int j = 0; j < kQk; ++j) {
    const VF ax = vf_abs(v.x[j]);
    const VM bigger = gt(ax, amax);
    amax = sel(bigger, ax, amax);
    max = sel(bigger, v.x[j], max);
  }
  VF wx[kQk];  // w * x: the same product in every pass
  for (int j = 0; j < kQk; ++j) wx[j] = v.w[j] * v.x[j];
  auto sums = [&](VF iscale, VF& sumlx, VF& suml2) {
    sumlx = suml2 = zero;
    for (int j = 0; j < kQk; ++j) {
      const VF fl = to_f(clamp(round_magic(iscale * v.x[j]), -kNmax, kNmax - 1));
      // Overflowed sums (inf - inf, inf * 0): x86's NaN, as in scale_search.cpp.
      sumlx = x86_nan(sumlx + wx[j] * fl, sumlx, v.w[j], v.x[j]);
      suml2 = x86_nan(suml2 + (v.w[j] * fl) * fl, suml2, v.w[j]);
    }
  };
  VF iscale = vf_set1(static_cast<float>(-kNmax)) / max, sumlx, suml2;
  sums(iscale, sumlx, suml2);
  VF scale = sel(ne(suml2, zero), x86_nan(sumlx / suml2, sumlx, suml2), zero);
  VF best = scale * sumlx;
  for (int is = -9; is <= 9; ++is) {
    if (is == 0) continue;
    const VF trial = vf_set1(-(static_cast<float>(kNmax) + 0.1f * static_cast<float>(is))) / max;
    sums(trial, sumlx, suml2);
    const VM better = gt(suml2, zero) & gt(sumlx * sumlx, best * suml2);
    scale = sel(better, x86_nan(sumlx / suml2, sumlx, suml2), scale);
    best = sel(better, scale * sumlx, best);
    iscale = sel(better, trial, iscale);
  }
  zero_out = lt(amax, vf_set1(1e-15f));
  scale_out = sel(zero_out, zero, scale);
  iscale_out = iscale;
}

// make_qkx3_quants(32, nmax, x, w, L, &min, Laux, -0.9, 0.05, 36, false) in lanes: the scales, the
// minimums (the value stored, -the_min) and the levels (level j of every block in levels[j]).
// Instead of copying a better candidate's levels, each lane keeps the inverse scale and the minimum
// they were rounded from, and the levels are rounded again from those at the end (same values).
template <int kNmax>
inline void affine_search(const Lanes& v, VF& scale_out, VF& min_out, VI* levels) {
  const VF zero = vf_set1(0.0f);
  VF min = v.x[0], max = v.x[0];
  VF sum_w = v.w[0], sum_x = sum_w * v.x[0];
  for (int j = 1; j < kQk; ++j) {
    min = sel(lt(v.x[j], min), v.x[j], min);
    max = sel(gt(v.x[j], max), v.x[j], max);
    sum_w = sum_w + v.w[j];
    sum_x = sum_x + v.w[j] * v.x[j];
  }
  min = sel(gt(min, zero), zero, min);
  const VM flat = le(max, min);
  const VF flat_min = min;
  auto level = [&](VF iscale, VF from, int j) { return to_f(clamp(round_magic(iscale * (v.x[j] - from)), 0, kNmax)); };
  VF iscale = vf_set1(static_cast<float>(kNmax)) / (max - min);
  VF scale = vf_set1(1.0f) / iscale;
  VF best_error = zero;
  for (int j = 0; j < kQk; ++j) {
    const VF diff = ((scale * level(iscale, min, j)) + min) - v.x[j];
    best_error = best_error + v.w[j] * (diff * diff);
  }
  VF level_iscale = iscale, level_min = min;  // where the current levels come from
  VF aux[kQk];
  for (int is = 0; is <= 36; ++is) {
    // Measured from the current best minimum, which a better candidate moves.
    iscale = vf_set1((-0.9f + 0.05f * static_cast<float>(is)) + static_cast<float>(kNmax)) / (max - min);
    VF sum_l = zero, sum_l2 = zero, sum_xl = zero;
    for (int j = 0; j < kQk; ++j) {
      aux[j] = level(iscale, min, j);
      const VF wl = v.w[j] * aux[j];
      sum_l = sum_l + wl;
      sum_l2 = sum_l2 + wl * aux[j];
      sum_xl = sum_xl + wl * v.x[j];
    }
    const VF D = (sum_w * sum_l2) - (sum_l * sum_l);
    VF this_scale = ((sum_w * sum_xl) - (sum_x * sum_l)) / D;
    VF this_min = ((sum_l2 * sum_x) - (sum_l * sum_xl)) / D;
    const VM positive = gt(this_min, zero);  // not representable: refit the scale alone
    this_min = sel(positive, zero, this_min);
    this_scale = sel(positive, sum_xl / sum_l2, this_scale);
    VF cur_error = zero;
    for (int j = 0; j < kQk; ++j) {
      const VF diff = ((this_scale * aux[j]) + this_min) - v.x[j];
      cur_error = cur_error + v.w[j] * (diff * diff);
    }
    const VM better = gt(D, zero) & lt(cur_error, best_error);
    level_iscale = sel(better, iscale, level_iscale);
    level_min = sel(better, min, level_min);
    best_error = sel(better, cur_error, best_error);
    scale = sel(better, this_scale, scale);
    min = sel(better, this_min, min);
  }
  for (int j = 0; j < kQk; ++j)
    levels[j] = sel(flat, vi_set1(0), clamp(round_magic(level_iscale * (v.x[j] - level_min)), 0, kNmax));
  scale_out = sel(flat, zero, scale);
  min_out = sel(flat, flat_min, min);
}

// The importance paths: 16 blocks at a time (they may span rows; each lane takes its row's
// variance and its column's importance); the last ones through the reference, in whole rows.
template <FormatId Id, int kBits, bool kAffine>
void weighted_rows(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row, const float* importance,
                   QuantizeRowsFn reference) {
  constexpr std::size_t kBytes = kBytesOf<Id>;
  constexpr int kNmax = kAffine ? (1 << kBits) - 1 : 1 << (kBits - 1);
  const std::size_t nb = n_per_row / kQk, blocks = rows * nb;
  std::vector<float> sigma2(rows);
  row_sigma2s(x, rows, n_per_row, sigma2.data());
  std::size_t b = 0;
  for (; b + kGroup <= blocks; b += kGroup) {
    const float* xb[kGroup];
    const float* qw[kGroup];
    alignas(64) float s2[kGroup];
    for (int k = 0; k < kGroup; ++k) {
      xb[k] = x + (b + k) * kQk;
      qw[k] = importance + (b + k) % nb * kQk;
      s2[k] = sigma2[(b + k) / nb];
    }
    Lanes v;
    load_lanes(xb, qw, s2, v);
    std::uint8_t* out = dst + b * kBytes;
    if constexpr (kAffine) {
      VF scale, min;
      VI levels[kQk];
      affine_search<kNmax>(v, scale, min, levels);
      alignas(64) std::int32_t t[kQk * kGroup];
      for (int j = 0; j < kQk; ++j) vi_store(t + j * kGroup, levels[j]);
      for (int k = 0; k < kGroup; ++k) {
        alignas(16) std::uint8_t l[kQk];
        for (int j = 0; j < kQk; ++j) l[j] = static_cast<std::uint8_t>(t[j * kGroup + k]);
        pack_levels<kBits>(load16(l), load16(l + 16), out + k * kBytes + 4);
      }
      scatter_u16(out, kBytes, ggml_half16(scale));
      scatter_u16(out + 2, kBytes, ggml_half16(min));
    } else {
      VF scale, iscale;
      VM zero;
      symmetric_search<kNmax>(v, scale, iscale, zero);
      alignas(64) float is[kGroup];
      store_f(is, iscale);
      const std::uint32_t zero_bits = lane_bits(zero);
      for (int k = 0; k < kGroup; ++k) {
        // Levels nmax + clamp(nearest_int(iscale * x)), each value its own expression; 0 when all zero.
        const VF s = vf_set1(is[k]);
        const Half2 h = load_block(xb[k]);
        VI l0 = clamp(round_magic(s * h.lo), -kNmax, kNmax - 1) + vi_set1(kNmax);
        VI l1 = clamp(round_magic(s * h.hi), -kNmax, kNmax - 1) + vi_set1(kNmax);
        if (zero_bits >> k & 1) l0 = l1 = vi_set1(0);
        pack_levels<kBits>(low_bytes(l0), low_bytes(l1), out + k * kBytes + 2);
      }
      scatter_u16(out, kBytes, ggml_half16(scale));
    }
  }
  // The rest: the reference takes whole rows (a block's weights need its row's variance), so it
  // redoes the row holding block b, and those after it.
  if (b < blocks) {
    const std::size_t r = b / nb;
    reference(x + r * n_per_row, dst + r * nb * kBytes, rows - r, n_per_row, importance);
  }
}

// ---------------------------------------------------------------- rows

// Without importance the rows are one run of blocks (no row state): whole groups go through
// Group, which checks the values it reduces, the rest through the reference kernel (as one row of
// the remaining blocks) after a check. The importance searches check first, then search.
// kWeighted: 0 no importance path (q8), 1 symmetric search, 2 affine search.
using GroupFn = bool (*)(const float*, std::uint8_t*);  // true: a value was not finite
template <FormatId Id, GroupFn Group, QuantizeRowsFn kReference, int kBits, int kWeighted>
void rows_of(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row, const float* importance) {
  constexpr std::size_t kBytes = kBytesOf<Id>;
  if (importance && kWeighted != 0) {
    refuse_non_finite(x, rows * n_per_row);
    return weighted_rows<Id, kBits, kWeighted == 2>(x, dst, rows, n_per_row, importance, kReference);
  }
  const std::size_t blocks = rows * (n_per_row / kQk);
  bool non_finite = false;
  std::size_t b = 0;
  for (; b + kGroup <= blocks; b += kGroup) non_finite |= Group(x + b * kQk, dst + b * kBytes);
  if (b < blocks) {
    refuse_non_finite(x + b * kQk, (blocks - b) * kQk);
    kReference(x + b * kQk, dst + b * kBytes, 1, (blocks - b) * kQk, nullptr);
  }
  if (non_finite) throw NonFiniteInput{};
}

template <FormatId Id, GroupFn Group, QuantizeRowsFn kReference, int kBits, int kWeighted>
constexpr QuantizeKernel row() {
  static_assert(formats::row(Id).block_elements == kQk);
  return {formats::row(Id).index, &rows_of<Id, Group, kReference, kBits, kWeighted>, true};
}

constexpr QuantizeKernel kTable[] = {
    row<FormatId::q8_0, q8_group<FormatId::q8_0>, &quantize::quantize_q8_0, 8, 0>(),
    row<FormatId::q8_1, q8_group<FormatId::q8_1>, &quantize::quantize_q8_1, 8, 0>(),
    row<FormatId::q4_0, symmetric_group<FormatId::q4_0, 4>, &quantize::quantize_q4_0, 4, 1>(),
    row<FormatId::q5_0, symmetric_group<FormatId::q5_0, 5>, &quantize::quantize_q5_0, 5, 1>(),
    row<FormatId::q4_1, affine_group<FormatId::q4_1, 4>, &quantize::quantize_q4_1, 4, 2>(),
    row<FormatId::q5_1, affine_group<FormatId::q5_1, 5>, &quantize::quantize_q5_1, 5, 2>(),
};

}  // namespace ql

}  // namespace

std::span<const QuantizeKernel> legacy_quantizers() { return ql::kTable; }
}  // namespace onnxq::simd::ONNXQ_SIMD_NS
