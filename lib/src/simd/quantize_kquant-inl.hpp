// The K-quant quantizers (q2_k .. q6_k, q8_k), written once over the 16-lane vector layer and
// compiled per ISA: include a vec_<isa>.hpp and the lane operations below first (see
// simd/<isa>/quantize_kquant.cpp). They write the bytes of the scalar reference
// (quantize/kquant.cpp, quantize/scale_search.cpp) on every input.
//
// How the lanes stay exact: a lane is one sub-block's scale search (the 32 values of a q4_k / q5_k
// sub-block, the 16 of a q2_k / q3_k / q6_k one), never values within one search. The values of
// a group of searches (16 lanes per VF; Two<VF> where an ISA sets kSearchVectors = 2, and for the
// q3_k descent) are transposed so that vector i holds value i of every search; each lane then
// runs its search's scalar operations in the scalar order (sums accumulate value 0, 1, 2, ...;
// products and sums stay separate roundings, -ffp-contract=off; divisions and square roots are
// the IEEE ones). A branch of the scalar code becomes a lane mask and a select with the same
// outcome, NaN included (an ordered compare is false on NaN, like C's <; != is the unordered one).
// Per-block steps that are cheap (the 8 or 16 scales of a block) run in scalar code, the
// element-wise requantizing and packing in vectors over consecutive values (each element is its
// own independent scalar expression there). Blocks that do not fill a group of lanes go to the
// reference kernel. q8_k has no search: its lanes are values (see K8).
//
// Lane operations expected besides the shared layer: kSearchVectors (1 or 2); VM; vf_load,
// vi_store, store_u8, store_low16, operator/, vf_sqrt, vf_abs, vf_neg, vf_max, vf_min, hmax, hmin,
// lane_sums, round_x86, lt, gt, le, eq, ne, unordered, VM & |, any, lane_bits, sel (VF and VI),
// as_i, vi_min, vi_max, VI |, shl, shr, transpose16.
#ifndef ONNXQ_SIMD_NS
#error "include simd/vec_<isa>.hpp first"
#endif

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

#include "formats/format_rows.hpp"
#include "onnxq/core/half.hpp"
#include "quantize/kernels.hpp"
#include "quantize/kquant_scales.hpp"
#include "quantize/rounding.hpp"
#include "quantize/scale_search.hpp"
#include "simd/quantize_kernels.hpp"

namespace onnxq::simd::ONNXQ_SIMD_NS {
namespace {

namespace kq {

using namespace formats;  // the layout structs
using quantize::detail::ggml_half;

constexpr int kQK = 256;    // elements per super-block
constexpr int kLanes = 16;  // lanes of VF / VI
constexpr float kGroupMaxEps = 1e-15f;

// ---------------------------------------------------------------- scalar pieces

// nearest_int of scale_search.cpp: the rounded integer from the low bits of v + 1.5 * 2^23.
inline int round_s(float v) {
  const float biased = v + 12582912.f;
  std::int32_t bits;
  std::memcpy(&bits, &biased, 4);
  return (bits & 0x007fffff) - 0x00400000;
}
inline int clamp_s(int v, int lo, int hi) {
  const int upper = v < hi ? v : hi;
  return lo > upper ? lo : upper;
}
// Stores a scale as ggml's half and returns what a decoder reads back.
inline float put_half(std::uint8_t* p, float v) {
  const std::uint16_t h = ggml_half(v);
  quantize::detail::store_u16(p, h);
  return half_to_float(h);
}
inline float sum_squares(const float* x, int n) {
  float s = 0;
  for (int i = 0; i < n; ++i) s += x[i] * x[i];
  return s;
}
}  // namespace kq

// ---------------------------------------------------------------- lane pieces
// (beside the ISA's lane operations rather than in kq, so that their overloads meet)

// Two vectors side by side: twice the lanes, and two independent dependency chains in every
// search loop (the searches are long chains of sums; an ISA with registers to spare sets
// kSearchVectors = 2 to overlap them).
template <class T>
struct Two {
  T a, b;
};
template <class T>
inline Two<T> two(T a, T b) {
  return {a, b};
}
#define ONNXQ_KQ_OP(op)                         \
  template <class T>                            \
  inline auto operator op(Two<T> x, Two<T> y) { \
    return two(x.a op y.a, x.b op y.b);         \
  }
ONNXQ_KQ_OP(+)
ONNXQ_KQ_OP(-)
ONNXQ_KQ_OP(*)
ONNXQ_KQ_OP(/)
ONNXQ_KQ_OP(&)
ONNXQ_KQ_OP(|)
#undef ONNXQ_KQ_OP
#define ONNXQ_KQ_FN1(fn)          \
  template <class T>              \
  inline auto fn(Two<T> x) {      \
    return two(fn(x.a), fn(x.b)); \
  }
ONNXQ_KQ_FN1(vf_sqrt)
ONNXQ_KQ_FN1(vf_abs)
ONNXQ_KQ_FN1(vf_neg)
ONNXQ_KQ_FN1(as_i)
ONNXQ_KQ_FN1(to_f)
#undef ONNXQ_KQ_FN1
#define ONNXQ_KQ_FN2(fn)                    \
  template <class T>                        \
  inline auto fn(Two<T> x, Two<T> y) {      \
    return two(fn(x.a, y.a), fn(x.b, y.b)); \
  }
ONNXQ_KQ_FN2(lt)
ONNXQ_KQ_FN2(gt)
ONNXQ_KQ_FN2(le)
ONNXQ_KQ_FN2(eq)
ONNXQ_KQ_FN2(ne)
ONNXQ_KQ_FN2(vi_min)
ONNXQ_KQ_FN2(vi_max)
#undef ONNXQ_KQ_FN2
template <class M, class T>
inline Two<T> sel(Two<M> m, Two<T> x, Two<T> y) {
  return {sel(m.a, x.a, y.a), sel(m.b, x.b, y.b)};
}
template <class M>
inline bool any(Two<M> m) {
  return any(m.a | m.b);
}

// Lanes of a vector type (16 per VF / VI), broadcasts, loads and stores for VF, VI and Two of them.
template <class V>
constexpr int kWidth = sizeof(V) / 4;
static_assert(kWidth<VF> == 16 && kWidth<VI> == 16 && kWidth<Two<VF>> == 32);
template <class V>
inline V splat(float v) {
  if constexpr (requires(V t) { t.a; }) {
    return {splat<decltype(V::a)>(v), splat<decltype(V::b)>(v)};
  } else {
    return vf_set1(v);
  }
}
template <class I>
inline I splat_i(std::int32_t v) {
  if constexpr (requires(I t) { t.a; })
    return {splat_i<decltype(I::a)>(v), splat_i<decltype(I::b)>(v)};
  else
    return vi_set1(v);
}
template <class V>
inline V load(const float* p) {
  if constexpr (requires(V t) { t.a; })
    return {load<decltype(V::a)>(p), load<decltype(V::b)>(p + kWidth<decltype(V::a)>)};
  else
    return vf_load(p);
}
inline void store(float* p, VF v) { store_f(p, v); }
inline void store(std::int32_t* p, VI v) { vi_store(p, v); }
template <class T, class E>
inline void store(E* p, Two<T> v) {
  store(p, v.a);
  store(p + kWidth<T>, v.b);
}

namespace kq {

// nearest_int per lane (same bits as round_s, garbage included, for any float).
template <class V>
inline auto round_v(V v) {
  using I = decltype(as_i(v));
  return (as_i(v + splat<V>(12582912.f)) & splat_i<I>(0x007fffff)) - splat_i<I>(0x00400000);
}
template <class I>
inline I clamp_v(I v, int lo, int hi) {
  return vi_max(splat_i<I>(lo), vi_min(v, splat_i<I>(hi)));
}

// Lane k of out[i] is src[k][i]: value i of search k (the transposition that makes lanes searches).
// Sixteen searches and sixteen values at a time, transposed in registers (transpose16).
template <int N, class V>
inline void gather(const float* const* src, V* out) {
  static_assert(N % 16 == 0);
  constexpr int W = kWidth<V>;
  alignas(64) float t[N * W];
  for (int k = 0; k < W; k += 16) {
    for (int i = 0; i < N; i += 16) {
      const void* rows[16];
      for (int r = 0; r < 16; ++r) rows[r] = src[k + r] + i;
      transpose16(rows, t + i * W + k, W);
    }
  }
  for (int i = 0; i < N; ++i) out[i] = load<V>(t + i * W);
}

// What a search leaves per lane. A search's levels follow from one scale: the level of value x is
// clamp(nearest_int(rec_iscale * (x - rec_min))) (asymmetric) or nmax + clamp(nearest_int(rec_iscale
// * x)) (symmetric), so only the scale is kept; a block rebuilds the levels of the rare sub-block
// whose stored scale is zero (the only ones the requantizing keeps).
template <int W>
struct Lanes {
  alignas(64) float scale[W];
  alignas(64) float the_min[W];      // asymmetric: -min
  alignas(64) float rec_iscale[W];   // the scale the kept levels were rounded with
  alignas(64) float rec_min[W];      // asymmetric: the min they were measured from
  alignas(64) std::int32_t zero[W];  // symmetric: an all-zero group (levels 0)
  alignas(64) float sumw[W];         // importance paths: the sum of the lane's weights
};

// make_qkx2_quants (kLeFlat false) / make_qkx3_quants (true) on N values per lane, nstep >= 1.
template <int N, bool kLeFlat, bool kMad, class V>
void asym_search(const V* x, const V* w, int nmax, float rmin, float rdelta, int nstep, Lanes<kWidth<V>>& out) {
  V min = x[0], max = x[0];
  V sum_w = w[0];
  V sum_x = sum_w * x[0];
  for (int i = 1; i < N; ++i) {
    min = sel(lt(x[i], min), x[i], min);
    max = sel(gt(x[i], max), x[i], max);
    sum_w = sum_w + w[i];
    sum_x = sum_x + w[i] * x[i];
  }
  min = sel(gt(min, splat<V>(0.f)), splat<V>(0.f), min);
  const auto flat = kLeFlat ? le(max, min) : eq(max, min);
  const V flat_min = min;
  const V fnmax = splat<V>(static_cast<float>(nmax));
  V iscale = fnmax / (max - min);
  V scale = splat<V>(1.f) / iscale;
  V best_error = splat<V>(0.f);
  for (int i = 0; i < N; ++i) {
    const V fl = to_f(clamp_v(round_v(iscale * (x[i] - min)), 0, nmax));
    V diff = ((scale * fl) + min) - x[i];
    diff = kMad ? vf_abs(diff) : diff * diff;
    best_error = best_error + w[i] * diff;
  }
  V rec_iscale = iscale, rec_min = min;
  V fls[N];
  for (int is = 0; is <= nstep; ++is) {
    // (max - min) with the current min: a better step moves the range of the next ones.
    iscale = splat<V>((rmin + rdelta * static_cast<float>(is)) + static_cast<float>(nmax)) / (max - min);
    V sum_l = splat<V>(0.f), sum_l2 = splat<V>(0.f), sum_xl = splat<V>(0.f);
    for (int i = 0; i < N; ++i) {
      const V fl = to_f(clamp_v(round_v(iscale * (x[i] - min)), 0, nmax));
      fls[i] = fl;
      const V wl = w[i] * fl;
      sum_l = sum_l + wl;
      sum_l2 = sum_l2 + wl * fl;
      sum_xl = sum_xl + wl * x[i];
    }
    const V D = (sum_w * sum_l2) - (sum_l * sum_l);
    const auto fit = gt(D, splat<V>(0.f));
    if (!any(fit)) continue;
    V this_scale = ((sum_w * sum_xl) - (sum_x * sum_l)) / D;
    V this_min = ((sum_l2 * sum_x) - (sum_l * sum_xl)) / D;
    // A positive offset is not representable: those lanes refit the scale alone.
    const auto positive = gt(this_min, splat<V>(0.f));
    this_min = sel(positive, splat<V>(0.f), this_min);
    this_scale = sel(positive, sum_xl / sum_l2, this_scale);
    V cur_error = splat<V>(0.f);
    for (int i = 0; i < N; ++i) {
      V diff = ((this_scale * fls[i]) + this_min) - x[i];
      diff = kMad ? vf_abs(diff) : diff * diff;
      cur_error = cur_error + w[i] * diff;
    }
    const auto better = fit & lt(cur_error, best_error);
    rec_iscale = sel(better, iscale, rec_iscale);
    rec_min = sel(better, min, rec_min);  // the levels were measured from the min before this step
    best_error = sel(better, cur_error, best_error);
    scale = sel(better, this_scale, scale);
    min = sel(better, this_min, min);
  }
  // A flat group: levels 0 (iscale 0 rounds every finite value to 0), scale 0, min as found.
  store(out.scale, sel(flat, splat<V>(0.f), scale));
  store(out.the_min, vf_neg(sel(flat, flat_min, min)));
  store(out.rec_iscale, sel(flat, splat<V>(0.f), rec_iscale));
  store(out.rec_min, sel(flat, splat<V>(0.f), rec_min));
}

// quantize/rounding.hpp's x86_nan lane by lane: a lane of r that is 0x7FC00000 (the NaN AArch64
// makes) where no operand's lane is becomes x86's 0xFFC00000. Bits are compared as the float of
// their difference (0 only when equal). Nothing on x86, where the CPU makes x86's NaN itself.
template <class V, class... T>
inline V x86_nan(V r, [[maybe_unused]] T... operands) {
#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
  return r;
#else
  const auto made = [](auto v) { return to_f(as_i(v) - as_i(splat<V>(std::bit_cast<float>(0x7FC00000u)))); };
  const V zero = splat<V>(0.0f);
  V out = sel(ne(made(r), zero), r, splat<V>(std::bit_cast<float>(0xFFC00000u)));
  ((out = sel(ne(made(operands), zero), out, r)), ...);
  return out;
#endif
}

// The maximum magnitude per lane and the value that has it (the first one on ties).
template <int N, class V>
inline void signed_absmax(const V* x, V& max, V& amax) {
  max = splat<V>(0.f);
  amax = splat<V>(0.f);
  for (int i = 0; i < N; ++i) {
    const V ax = vf_abs(x[i]);
    const auto m = gt(ax, amax);
    amax = sel(m, ax, amax);
    max = sel(m, x[i], max);
  }
}

// make_qx_quants with rmse_type 1 on N values per lane, weights w (x * x, or the importance).
template <int N, class V>
void qx_search(const V* x, const V* w, int nmax, Lanes<kWidth<V>>& out) {
  using I = decltype(as_i(x[0]));
  V max, amax;
  signed_absmax<N>(x, max, amax);
  const auto zero = lt(amax, splat<V>(kGroupMaxEps));
  V wx[N];
  for (int i = 0; i < N; ++i) wx[i] = w[i] * x[i];
  // The weighted fit of the levels rounded with iscale.
  auto fit = [&](V iscale, V& sumlx, V& suml2) {
    sumlx = splat<V>(0.f);
    suml2 = splat<V>(0.f);
    for (int i = 0; i < N; ++i) {
      const V fl = to_f(clamp_v(round_v(iscale * x[i]), -nmax, nmax - 1));
      // Overflowed sums (inf - inf, inf * 0): x86's NaN, as in scale_search.cpp (q3_k's block
      // scale search takes these scales, NaN sign included, as its values).
      sumlx = x86_nan(sumlx + wx[i] * fl, sumlx, w[i], x[i]);
      suml2 = x86_nan(suml2 + (w[i] * fl) * fl, suml2, w[i]);
    }
  };
  V iscale = splat<V>(static_cast<float>(-nmax)) / max;
  V sumlx, suml2;
  fit(iscale, sumlx, suml2);
  V scale = sel(ne(suml2, splat<V>(0.f)), x86_nan(sumlx / suml2, sumlx, suml2), splat<V>(0.f));
  V best = scale * sumlx;
  V rec_iscale = iscale;
  const float fnmax = static_cast<float>(nmax);
  for (int is = -9; is <= 9; ++is) {
    if (is == 0) continue;
    iscale = splat<V>(-(fnmax + 0.1f * static_cast<float>(is))) / max;
    fit(iscale, sumlx, suml2);
    const auto better = gt(suml2, splat<V>(0.f)) & gt(sumlx * sumlx, best * suml2);
    if (!any(better)) continue;
    scale = sel(better, x86_nan(sumlx / suml2, sumlx, suml2), scale);
    best = sel(better, scale * sumlx, best);
    rec_iscale = sel(better, iscale, rec_iscale);
  }
  store(out.scale, sel(zero, splat<V>(0.f), scale));
  store(out.rec_iscale, rec_iscale);
  store(out.zero, sel(zero, splat_i<I>(1), splat_i<I>(0)));
}

// make_q3_quants with do_rmse on 16 values per lane, for C chunks of 16 lanes (x[c][i]: value i
// of the chunk's searches): the coordinate descent runs per lane, a chunk until 16 steps in a row
// change no lane, or five passes are done. A lane whose last 16 steps changed nothing is at a fixed
// point: the next steps see the same sums and levels, so they change nothing either, and the pass
// that ggml would still run to find that out (the rest of this one, or the next) is skipped without
// changing a byte. Converged lanes need no mask for the same reason. Chunks are separate so that
// each stops on its own, and interleaved so that their chains overlap. The levels (-4 .. 3, as
// floats) go to levels[i * 16 C + lane], and out.zero marks the all-zero groups: a block reads them
// back only for a sub-block whose stored scale is zero, which is rare.
template <int C>
void q3_search(const VF (*x)[16], Lanes<16 * C>& out, float* levels) {
  constexpr int N = 16, nmax = 4;
  const VF zero_v = vf_set1(0.f);
  // Per lane: the sums, and sumlx squared kept rather than recomputed each step (the same product).
  VF w[C][N], wx[C][N], fl[C][N], sumlx[C], suml2[C], sq[C];
  VM zero[C];
  for (int c = 0; c < C; ++c) {
    VF max, amax;
    signed_absmax<N>(x[c], max, amax);
    zero[c] = lt(amax, vf_set1(kGroupMaxEps));
    const VF iscale = vf_set1(static_cast<float>(-nmax)) / max;
    sumlx[c] = suml2[c] = zero_v;
    for (int i = 0; i < N; ++i) {
      w[c][i] = x[c][i] * x[c][i];
      wx[c][i] = w[c][i] * x[c][i];
      fl[c][i] = to_f(clamp_v(round_v(iscale * x[c][i]), -nmax, nmax - 1));
      sumlx[c] = sumlx[c] + wx[c][i] * fl[c][i];
      suml2[c] = suml2[c] + (w[c][i] * fl[c][i]) * fl[c][i];
    }
    sq[c] = sumlx[c] * sumlx[c];
  }
  int still[C];  // steps since a lane of the chunk last changed; N or more: the chunk is done
  for (int c = 0; c < C; ++c) still[c] = 0;
  int live = C;
  for (int itry = 0; itry < 5 && live > 0; ++itry) {
    for (int i = 0; i < N && live > 0; ++i) {
      for (int c = 0; c < C; ++c) {
        if (still[c] >= N) continue;
        const VF li = fl[c][i];
        const VF slx0 = sumlx[c] - wx[c][i] * li;
        const VF sl20 = suml2[c] - (w[c][i] * li) * li;
        const VF nl = to_f(clamp_v(round_v((x[c][i] * sl20) / slx0), -nmax, nmax - 1));
        const VF slx = slx0 + wx[c][i] * nl;
        const VF sl2 = sl20 + (w[c][i] * nl) * nl;
        const VF slx_sq = slx * slx;
        // Levels are small integers, so comparing them as floats is comparing the ints.
        const VM take = gt(slx0, zero_v) & ne(nl, li) & gt(sl2, zero_v) & gt(slx_sq * suml2[c], sq[c] * sl2);
        fl[c][i] = sel(take, nl, li);
        sumlx[c] = sel(take, slx, sumlx[c]);
        suml2[c] = sel(take, sl2, suml2[c]);
        sq[c] = sel(take, slx_sq, sq[c]);
        // Arithmetic, not a branch: whether a lane changed is too random to predict.
        still[c] = (still[c] + 1) & (static_cast<int>(any(take)) - 1);
        live -= still[c] >= N;
      }
    }
  }
  for (int c = 0; c < C; ++c) {
    for (int i = 0; i < N; ++i) store_f(levels + i * 16 * C + 16 * c, fl[c][i]);
    vi_store(out.zero + 16 * c, sel(zero[c], vi_set1(1), vi_set1(0)));
    const VF scale = sel(gt(suml2[c], zero_v), sumlx[c] / suml2[c], zero_v);
    store_f(out.scale + 16 * c, sel(zero[c], zero_v, scale));
  }
}

// ---------------------------------------------------------------- groups

// The search vectors: VF, or two of them where the ISA asks for two chains (kSearchVectors).
using VS = std::conditional_t<kSearchVectors == 2, Two<VF>, VF>;
constexpr int kW = kWidth<VS>;  // searches per group

// The lanes' values: lane k is the k % per_block'th sub-block (n values) of block k / per_block.
template <int N, class V>
inline void gather_subblocks(const float* const* xb, V* x) {
  constexpr int kPerBlock = kQK / N;
  constexpr int kW = kWidth<V>;
  const float* src[kW];
  for (int k = 0; k < kW; ++k) src[k] = xb[k / kPerBlock] + N * (k % kPerBlock);
  gather<N>(src, x);
}
// With an importance matrix: weights importance * sqrt(sigma2 + x^2), sigma2 = a * (sum of the
// block's squares) / 256 with a = 1 or 2, and the sum of each lane's weights.
template <int N, class V>
inline void sigma_weights(const float* const* xb, const float* const* qb, float a, const V* x, V* w,
                          Lanes<kWidth<V>>& r) {
  constexpr int kPerBlock = kQK / N;
  constexpr int kW = kWidth<V>;
  alignas(64) float sig[kW];
  for (int b = 0; b < kW / kPerBlock; ++b) {
    const float s = a == 1 ? sum_squares(xb[b], kQK) : a * sum_squares(xb[b], kQK);
    for (int j = 0; j < kPerBlock; ++j) sig[b * kPerBlock + j] = s / static_cast<float>(kQK);
  }
  const V sigma2 = load<V>(sig);
  gather_subblocks<N>(qb, w);
  V sumw = splat<V>(0.f);
  for (int i = 0; i < N; ++i) {
    // 0 * inf once the sum of squares overflows: x86's NaN, as in kquant.cpp.
    w[i] = x86_nan(w[i] * vf_sqrt(sigma2 + x[i] * x[i]), w[i], sigma2, x[i]);
    sumw = x86_nan(sumw + w[i], sumw, w[i]);
  }
  store(r.sumw, sumw);
}

// ---------------------------------------------------------------- q4_k / q5_k

// The 6-bit scale and min of sub-block j from the 12 scale bytes.
inline void scale_min_k4(int j, const std::uint8_t* q, int& d, int& m) {
  if (j < 4) {
    d = q[j] & 63;
    m = q[j + 4] & 63;
  } else {
    d = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
    m = (q[j + 4] >> 4) | ((q[j - 0] >> 6) << 4);
  }
}
inline void pack_scales_k4(const std::uint8_t* ls, const std::uint8_t* lm, std::uint8_t* S) {
  for (int j = 0; j < 8; ++j) {
    if (j < 4) {
      S[j] = ls[j];
      S[j + 4] = lm[j];
    } else {
      S[j + 4] = static_cast<std::uint8_t>((ls[j] & 0xF) | ((lm[j] & 0xF) << 4));
      S[j - 4] = static_cast<std::uint8_t>(S[j - 4] | ((ls[j] >> 4) << 6));
      S[j - 0] = static_cast<std::uint8_t>(S[j - 0] | ((lm[j] >> 4) << 6));
    }
  }
}

// Lanes 8b + j: sub-block j (32 values) of block b.
template <int kNmax>
struct K4 {
  static_assert(offsetof(BlockQ4_K, d) == offsetof(BlockQ5_K, d) &&
                offsetof(BlockQ4_K, dmin) == offsetof(BlockQ5_K, dmin) &&
                offsetof(BlockQ4_K, scales) == offsetof(BlockQ5_K, scales));
  static constexpr int kBlocks = kW / 8;
  static constexpr std::size_t kBytes = kNmax == 15 ? sizeof(BlockQ4_K) : sizeof(BlockQ5_K);

  static void group(const float* const* xb, std::uint8_t* const* db, const float* const* qb) {
    VS x[32], w[32];
    gather_subblocks<32>(xb, x);
    Lanes<kW> r;
    if (!qb[0]) {
      // Weight = rms of the sub-block + |x|.
      VS s = splat<VS>(0.f);
      for (int i = 0; i < 32; ++i) s = s + x[i] * x[i];
      const VS av_x = vf_sqrt(s / splat<VS>(32.f));
      for (int i = 0; i < 32; ++i) w[i] = av_x + vf_abs(x[i]);
      asym_search<32, false, false>(x, w, kNmax, kNmax == 15 ? -1.f : -0.5f, 0.1f, kNmax == 15 ? 20 : 15, r);
    } else {
      sigma_weights<32>(xb, qb, 2, x, w, r);
      asym_search<32, true, false>(x, w, kNmax, -0.9f, 0.05f, 36, r);
    }
    for (int b = 0; b < kBlocks; ++b) finish(xb[b], db[b], qb[b] != nullptr, r, 8 * b);
  }

  // The block's scale bytes from its 8 lanes at `at`, then its levels against the stored scales.
  static void finish(const float* x, std::uint8_t* blk, bool importance, const Lanes<kW>& r, int at) {
    const float* scales = r.scale + at;
    const float* mins = r.the_min + at;
    std::uint8_t ls[8], lm[8];
    std::uint8_t* S = blk + offsetof(BlockQ4_K, scales);
    float d_all, m_all;
    if (!importance) {
      float max_scale = 0, max_min = 0;
      for (int j = 0; j < 8; ++j) {
        if (scales[j] > max_scale) max_scale = scales[j];
        if (mins[j] > max_min) max_min = mins[j];
      }
      const float inv_scale = max_scale > 0 ? 63.f / max_scale : 0.f;
      const float inv_min = max_min > 0 ? 63.f / max_min : 0.f;
      for (int j = 0; j < 8; ++j) {
        const auto s8 = static_cast<std::uint8_t>(round_s(inv_scale * scales[j]));  // narrowed, then clamped
        const auto m8 = static_cast<std::uint8_t>(round_s(inv_min * mins[j]));
        ls[j] = s8 < 63 ? s8 : 63;
        lm[j] = m8 < 63 ? m8 : 63;
      }
      pack_scales_k4(ls, lm, S);
      d_all = put_half(blk + offsetof(BlockQ4_K, d), max_scale / 63.f);
      m_all = put_half(blk + offsetof(BlockQ4_K, dmin), max_min / 63.f);
    } else {
      const float d_block = quantize::make_qp_quants(8, 63, scales, ls, r.sumw + at);
      const float m_block = quantize::make_qp_quants(8, 63, mins, lm, r.sumw + at);
      if constexpr (kNmax == 31) {  // only q5_k clamps; q4_k packs a wrapped byte as it is
        for (int j = 0; j < 8; ++j) {
          ls[j] = ls[j] < 63 ? ls[j] : 63;
          lm[j] = lm[j] < 63 ? lm[j] : 63;
        }
      }
      pack_scales_k4(ls, lm, S);
      d_all = put_half(blk + offsetof(BlockQ4_K, d), d_block);
      m_all = put_half(blk + offsetof(BlockQ4_K, dmin), m_block);
    }
    // L[2j + h]: values 32j + 16h .. +15.
    VI L[16];
    for (int j = 0; j < 8; ++j) {
      int sc, m;
      scale_min_k4(j, S, sc, m);
      const float d = d_all * static_cast<float>(sc);
      const float dm = m_all * static_cast<float>(m);
      for (int h = 0; h < 2; ++h) {
        const VF xv = vf_load(x + 32 * j + 16 * h);
        if (!(d != 0)) {  // ggml's `if (!d)`: the search levels stay (NaN goes on)
          const VF v = vf_set1(r.rec_iscale[at + j]) * (xv - vf_set1(r.rec_min[at + j]));
          L[2 * j + h] = clamp_v(round_v(v), 0, kNmax);
        } else {
          L[2 * j + h] = clamp_v(round_v((xv + vf_set1(dm)) / vf_set1(d)), 0, kNmax);
        }
      }
    }
    if constexpr (kNmax == 15) {
      // Byte 32*p + l: value 64*p + l in the low nibble, 64*p + 32 + l in the high one.
      std::uint8_t* q = blk + offsetof(BlockQ4_K, qs);
      for (int p = 0; p < 4; ++p) {
        for (int h = 0; h < 2; ++h) store_u8(q + 32 * p + 16 * h, L[4 * p + h] | shl(L[4 * p + 2 + h], 4));
      }
    } else {
      // Low nibbles as q4_k; bit 4 of value 64*p + 32*s + l goes to qh[l], bit 2p + s.
      std::uint8_t* ql = blk + offsetof(BlockQ5_K, qs);
      std::uint8_t* qh = blk + offsetof(BlockQ5_K, qh);
      const VI nib = vi_set1(15);
      for (int h = 0; h < 2; ++h) {
        VI hbits = vi_set1(0);
        for (int p = 0; p < 4; ++p) {
          const VI a = L[4 * p + h], c = L[4 * p + 2 + h];
          store_u8(ql + 32 * p + 16 * h, (a & nib) | shl(c & nib, 4));
          hbits = hbits | shl(shr(a, 4), 2 * p) | shl(shr(c, 4), 2 * p + 1);
        }
        store_u8(qh + 16 * h, hbits);
      }
    }
  }

  static void reference(const float* x, std::uint8_t* dst, const float* qw) {
    if constexpr (kNmax == 15)
      quantize::quantize_q4_k(x, dst, 1, kQK, qw);
    else
      quantize::quantize_q5_k(x, dst, 1, kQK, qw);
  }
};

// ---------------------------------------------------------------- q6_k

// Lanes 16b + j: sub-block j (16 values) of block b.
struct K6 {
  static constexpr int kBlocks = kW / 16;
  static constexpr std::size_t kBytes = sizeof(BlockQ6_K);

  static void group(const float* const* xb, std::uint8_t* const* db, const float* const* qb) {
    VS x[16], w[16];
    gather_subblocks<16>(xb, x);
    if (qb[0]) {
      gather_subblocks<16>(qb, w);  // the importance is the weight as it is (no sigma term)
    } else {
      for (int i = 0; i < 16; ++i) w[i] = x[i] * x[i];
    }
    Lanes<kW> r;
    qx_search<16>(x, w, 32, r);
    for (int b = 0; b < kBlocks; ++b) finish(xb[b], db[b], r, 16 * b);
  }

  static void finish(const float* x0, std::uint8_t* blk, const Lanes<kW>& r, int at) {
    const float* scales = r.scale + at;
    float max_scale = 0, max_abs_scale = 0;
    for (int j = 0; j < 16; ++j) {
      const float a = std::fabs(scales[j]);
      if (a > max_abs_scale) {
        max_abs_scale = a;
        max_scale = scales[j];
      }
    }
    if (max_abs_scale < kGroupMaxEps) {  // an all-zero block
      std::memset(blk, 0, sizeof(BlockQ6_K));
      return;
    }
    std::uint8_t* S = blk + offsetof(BlockQ6_K, scales);
    const float iscale = -128.f / max_scale;
    const float d_all = put_half(blk + offsetof(BlockQ6_K, d), 1 / iscale);
    for (int j = 0; j < 16; ++j) {
      const int l = round_s(iscale * scales[j]);
      S[j] = static_cast<std::uint8_t>(static_cast<std::int8_t>(l < 127 ? l : 127));
    }
    VI L[16];  // L[j]: sub-block j, levels + 32
    for (int j = 0; j < 16; ++j) {
      const float d = d_all * static_cast<float>(static_cast<std::int8_t>(S[j]));
      const VF xv = vf_load(x0 + 16 * j);
      if (!(d != 0)) {
        L[j] =
            r.zero[at + j] ? vi_set1(0) : clamp_v(round_v(vf_set1(r.rec_iscale[at + j]) * xv), -32, 31) + vi_set1(32);
      } else {
        L[j] = clamp_v(round_v(xv / vf_set1(d)), -32, 31) + vi_set1(32);
      }
    }
    // Values 128*p + 32*s + l (s = 0..3) share ql[64*p + l] (s = 0, 2), ql[64*p + 32 + l] (s = 1,
    // 3) and qh[32*p + l] (top 2 bits of all four at 2s).
    std::uint8_t* ql = blk + offsetof(BlockQ6_K, ql);
    std::uint8_t* qh = blk + offsetof(BlockQ6_K, qh);
    const VI nib = vi_set1(15);
    for (int p = 0; p < 2; ++p) {
      for (int h = 0; h < 2; ++h) {
        const VI v0 = L[8 * p + h], v1 = L[8 * p + 2 + h], v2 = L[8 * p + 4 + h], v3 = L[8 * p + 6 + h];
        store_u8(ql + 64 * p + 16 * h, (v0 & nib) | shl(v2 & nib, 4));
        store_u8(ql + 64 * p + 32 + 16 * h, (v1 & nib) | shl(v3 & nib, 4));
        store_u8(qh + 32 * p + 16 * h, shr(v0, 4) | shl(shr(v1, 4), 2) | shl(shr(v2, 4), 4) | shl(shr(v3, 4), 6));
      }
    }
  }

  static void reference(const float* x, std::uint8_t* dst, const float* qw) {
    quantize::quantize_q6_k(x, dst, 1, kQK, qw);
  }
};

// ---------------------------------------------------------------- q2_k / q3_k

// Bytes 32*p + 16*h + t of a 2-bit field: values 128*p + 32*s + 16*h + t at bits 2s, from
// L[j] = sub-block j.
inline void pack_2bit(const VI* L, std::uint8_t* qs) {
  for (int p = 0; p < 2; ++p) {
    for (int h = 0; h < 2; ++h) {
      const VI* l = L + 8 * p + h;
      store_u8(qs + 32 * p + 16 * h, l[0] | shl(l[2], 2) | shl(l[4], 4) | shl(l[6], 6));
    }
  }
}

// Lanes 16b + j: sub-block j (16 values) of block b.
struct K2 {
  static constexpr int kBlocks = kW / 16;
  static constexpr std::size_t kBytes = sizeof(BlockQ2_K);

  static void group(const float* const* xb, std::uint8_t* const* db, const float* const* qb) {
    VS x[16], w[16];
    gather_subblocks<16>(xb, x);
    Lanes<kW> r;
    if (!qb[0]) {
      // Weight |x|, mean absolute error.
      for (int i = 0; i < 16; ++i) w[i] = vf_abs(x[i]);
      asym_search<16, false, true>(x, w, 3, -0.5f, 0.1f, 15, r);
    } else {
      sigma_weights<16>(xb, qb, 1, x, w, r);
      asym_search<16, true, false>(x, w, 3, -0.9f, 0.05f, 36, r);
    }
    for (int b = 0; b < kBlocks; ++b) finish(xb[b], db[b], qb[b] != nullptr, r, 16 * b);
  }

  static void finish(const float* x0, std::uint8_t* blk, bool importance, const Lanes<kW>& r, int at) {
    const float* scales = r.scale + at;
    const float* mins = r.the_min + at;
    const quantize::Q2KScaleBase base = quantize::q2_k_scales(scales, mins, importance ? r.sumw + at : nullptr, blk);
    const float d_all = base.d, m_all = base.dmin;
    const std::uint8_t* S = blk + offsetof(BlockQ2_K, scales);
    VI L[16];
    for (int j = 0; j < 16; ++j) {
      const float d = d_all * static_cast<float>(S[j] & 0xF);
      const VF xv = vf_load(x0 + 16 * j);
      if (!(d != 0)) {
        const VF v = vf_set1(r.rec_iscale[at + j]) * (xv - vf_set1(r.rec_min[at + j]));
        L[j] = clamp_v(round_v(v), 0, 3);
      } else {
        const float m = m_all * static_cast<float>(S[j] >> 4);
        L[j] = clamp_v(round_v((xv + vf_set1(m)) / vf_set1(d)), 0, 3);
      }
    }
    pack_2bit(L, blk + offsetof(BlockQ2_K, qs));
  }

  static void reference(const float* x, std::uint8_t* dst, const float* qw) {
    quantize::quantize_q2_k(x, dst, 1, kQK, qw);
  }
};

// Lanes 16b + j: sub-block j (16 values) of block b.
struct K3 {
  // Twice the search vectors: without importance the coordinate descent is one long chain per
  // lane, run as one chunk of 16 lanes per block with the chunks interleaved.
  using V3 = Two<VS>;
  static constexpr int kW = kWidth<V3>;
  static constexpr int kBlocks = kW / 16;
  static constexpr std::size_t kBytes = sizeof(BlockQ3_K);

  static void group(const float* const* xb, std::uint8_t* const* db, const float* const* qb) {
    Lanes<kW> r;
    alignas(64) float levels[16 * kW];  // no importance: the search levels, [value i][lane]
    if (!qb[0]) {
      VF x[kBlocks][16];  // chunk b: the 16 sub-blocks of block b
      for (int b = 0; b < kBlocks; ++b) gather_subblocks<16>(xb + b, x[b]);
      q3_search<kBlocks>(x, r, levels);
    } else {
      V3 x[16], w[16];
      gather_subblocks<16>(xb, x);
      sigma_weights<16>(xb, qb, 2, x, w, r);
      qx_search<16>(x, w, 4, r);
    }
    for (int b = 0; b < kBlocks; ++b) finish(xb[b], db[b], qb[b] != nullptr, r, levels, 16 * b);
  }

  static void finish(const float* x0, std::uint8_t* blk, bool importance, const Lanes<kW>& r, const float* levels,
                     int at) {
    const float* scales = r.scale + at;
    int l6[16] = {};  // the stored 6-bit scales (scale + 32; all 0 when the block's are)
    std::uint16_t d_half;
    if (!importance) {
      float max_scale = 0, amax = 0;
      for (int j = 0; j < 16; ++j) {
        const float a = std::fabs(scales[j]);
        if (a > amax) {
          amax = a;
          max_scale = scales[j];
        }
      }
      if (max_scale != 0) {  // NaN goes on
        const float iscale = -32.f / max_scale;
        for (int j = 0; j < 16; ++j) {
          const auto l8 = static_cast<std::int8_t>(round_s(iscale * scales[j]));  // narrowed, then clamped
          l6[j] = clamp_s(l8, -32, 31) + 32;
        }
        d_half = ggml_half(1 / iscale);
      } else {
        d_half = ggml_half(0.f);
      }
    } else {
      std::int8_t Ls[16];
      const float d_block = quantize::make_qx_quants(16, 32, scales, Ls, 1, r.sumw + at);
      for (int j = 0; j < 16; ++j) l6[j] = Ls[j];
      d_half = ggml_half(d_block);
    }
    // Scale j's low 4 bits in byte j % 8 (the high nibble for j >= 8), its top 2 in byte 8 + j % 4
    // at bit 2 * (j / 4).
    std::uint8_t* S = blk + offsetof(BlockQ3_K, scales);
    for (int j = 0; j < 8; ++j) S[j] = static_cast<std::uint8_t>((l6[j] & 0xF) | ((l6[j + 8] & 0xF) << 4));
    for (int m = 0; m < 4; ++m) {
      S[8 + m] = static_cast<std::uint8_t>((l6[m] >> 4) | ((l6[m + 4] >> 4) << 2) | ((l6[m + 8] >> 4) << 4) |
                                           ((l6[m + 12] >> 4) << 6));
    }
    quantize::detail::store_u16(blk + offsetof(BlockQ3_K, d), d_half);
    const float d_all = half_to_float(d_half);

    VI L[16];  // sub-block j, levels + 4
    for (int j = 0; j < 16; ++j) {
      const float d = d_all * static_cast<float>(l6[j] - 32);
      const VF xv = vf_load(x0 + 16 * j);
      if (!(d != 0)) {
        if (!importance) {
          // Rare: a sub-block whose stored scale is zero keeps its search levels (small integers
          // held as floats, which round_v gives back exactly), or 0 for an all-zero group.
          alignas(64) float l[16];
          for (int i = 0; i < 16; ++i) l[i] = levels[i * kW + at + j];
          L[j] = r.zero[at + j] ? vi_set1(0) : round_v(vf_load(l)) + vi_set1(4);
        } else {
          L[j] = r.zero[at + j] ? vi_set1(0) : clamp_v(round_v(vf_set1(r.rec_iscale[at + j]) * xv), -4, 3) + vi_set1(4);
        }
      } else {
        L[j] = clamp_v(round_v(xv / vf_set1(d)), -4, 3) + vi_set1(4);
      }
    }
    // Bit 2 of value 32*m + t goes to hmask[t] bit m; the low 2 bits pack like q2_k.
    std::uint8_t* hmask = blk + offsetof(BlockQ3_K, hmask);
    for (int h = 0; h < 2; ++h) {
      VI bits = vi_set1(0);
      for (int m = 0; m < 8; ++m) bits = bits | shl(shr(L[2 * m + h], 2), m);
      store_u8(hmask + 16 * h, bits);
    }
    const VI three = vi_set1(3);
    for (int j = 0; j < 16; ++j) L[j] = L[j] & three;
    pack_2bit(L, blk + offsetof(BlockQ3_K, qs));
  }

  static void reference(const float* x, std::uint8_t* dst, const float* qw) {
    quantize::quantize_q3_k(x, dst, 1, kQK, qw);
  }
};

// ---------------------------------------------------------------- q8_k

// One block at a time; here a lane is a value. The block's maximum and minimum are exact in any
// order (finite floats), and they give the first value of largest magnitude unless a and -a both
// have it, when it is found in order; each level and the integer sums are independent of the order.
// The values are checked as they are reduced (quantize_rows reads them once): a NaN makes its pair
// of vectors unordered, and an infinity is the block's maximum or minimum. Until the rows are
// refused a NaN or an infinity only makes bytes; no read leaves the block.
struct K8 {
  static constexpr std::size_t kBytes = sizeof(BlockQ8_K);
  static constexpr int kVectors = kQK / 16;

  // The first value whose magnitude is m (m itself when none is: a block with a NaN).
  static float first_of_magnitude(const float* x, float m) {
    for (int j = 0; j < kQK; ++j)
      if (std::fabs(x[j]) == m) return x[j];
    return m;
  }

  // Returns whether a value was not finite.
  static bool block(const float* x, std::uint8_t* blk) {
    VF v[kVectors];
    for (int j = 0; j < kVectors; ++j) v[j] = vf_load(x + 16 * j);
    // Pairwise, so that the reductions' chains are 4 steps long, not 15.
    VF hi[kVectors / 2], lo[kVectors / 2];
    VM nan[kVectors / 2];
    for (int j = 0; j < kVectors / 2; ++j) {
      hi[j] = vf_max(v[2 * j], v[2 * j + 1]);
      lo[j] = vf_min(v[2 * j], v[2 * j + 1]);
      nan[j] = unordered(v[2 * j], v[2 * j + 1]);
    }
    for (int n = kVectors / 4; n >= 1; n /= 2)
      for (int j = 0; j < n; ++j) {
        hi[j] = vf_max(hi[j], hi[j + n]);
        lo[j] = vf_min(lo[j], lo[j + n]);
        nan[j] = nan[j] | nan[j + n];
      }
    const float max = hmax(hi[0]), min = hmin(lo[0]);
    const bool non_finite = any(nan[0]) || max == INFINITY || min == -INFINITY;
    float first;
    if (max > -min) {
      first = max;
    } else if (max < -min) {
      first = min;
    } else if (max == 0.0f) {  // all zero: d, levels and the sums all stay zero
      std::memset(blk, 0, sizeof(BlockQ8_K));
      return non_finite;
    } else {
      first = first_of_magnitude(x, max);
    }
    const float iscale = -127.f / first;
    std::uint8_t* qs = blk + offsetof(BlockQ8_K, qs);
    VI levels[kVectors];
    // ggml rounds with nearest_int (round_v); round_x86 gives the same integer below 2^22 in
    // magnitude. |iscale * x| is at most 127 (1 + 2^-24)^2 < 127.5 (two roundings of 127 |x| / |max|,
    // |x| <= |max|), so the level is within [-127, 127] and ggml's MIN(127, level) never changes
    // it, unless -127 / max overflowed to an infinity (a block of values under 127 / FLT_MAX). Then
    // each product is an infinity or NaN (0 * inf), where nearest_int gives -2^22 or 0 and
    // round_x86 INT32_MIN: the byte is 0 either way, and the minimum changes neither.
    for (int j = 0; j < kVectors; ++j) {
      levels[j] = round_x86(vf_set1(iscale) * v[j]);
      store_u8(qs + 16 * j, levels[j]);
    }
    // The sums are of the stored int8 bytes, and the low 16 bits of the levels' own sum are
    // theirs: a finite block's levels are in [-127, 127], or, in the overflow above, all INT32_MIN
    // or 0, whose bytes are 0 and whose sum is a multiple of 2^31.
    static_assert(kVectors == 16, "one sum per lane");
    store_low16(blk + offsetof(BlockQ8_K, bsums), lane_sums(levels));
    float d = 1 / iscale;
    std::uint32_t bits;
    std::memcpy(&bits, &d, 4);
    quantize::detail::store_u32(blk + offsetof(BlockQ8_K, d), bits);
    return non_finite;
  }

  // Every block of the call (q8_k takes no importance); throws NonFiniteInput at the end when a
  // value was not finite.
  static void rows(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row, const float*) {
    const std::size_t blocks = rows * (n_per_row / kQK);
    bool non_finite = false;
    for (std::size_t b = 0; b < blocks; ++b) non_finite |= block(x + b * kQK, dst + b * kBytes);
    if (non_finite) throw NonFiniteInput{};
  }
};

// ---------------------------------------------------------------- driver

// Every block of the call in groups of F::kBlocks; block i of a row uses importance[256 * i ...].
// Leftover blocks go to the reference kernel.
template <class F>
void run(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row, const float* importance) {
  const std::size_t per_row = n_per_row / kQK;
  const std::size_t total = rows * per_row;
  auto qw_of = [&](std::size_t blk) { return importance ? importance + (blk % per_row) * kQK : nullptr; };
  std::size_t blk = 0;
  for (; blk + F::kBlocks <= total; blk += F::kBlocks) {
    const float* xb[F::kBlocks];
    std::uint8_t* db[F::kBlocks];
    const float* qb[F::kBlocks];
    for (int b = 0; b < F::kBlocks; ++b) {
      xb[b] = x + (blk + b) * kQK;
      db[b] = dst + (blk + b) * F::kBytes;
      qb[b] = qw_of(blk + b);
    }
    F::group(xb, db, qb);
  }
  for (; blk < total; ++blk) F::reference(x + blk * kQK, dst + blk * F::kBytes, qw_of(blk));
}

template <class F>
constexpr QuantizeKernel entry(FormatId id) {
  return QuantizeKernel{formats::row(id).index, &run<F>};
}

}  // namespace kq
}  // namespace

std::span<const QuantizeKernel> kquant_quantizers() {
  using formats::FormatId;
  static constexpr QuantizeKernel kTable[] = {
      kq::entry<kq::K4<15>>(FormatId::q4_k), kq::entry<kq::K4<31>>(FormatId::q5_k),
      kq::entry<kq::K6>(FormatId::q6_k),     kq::entry<kq::K2>(FormatId::q2_k),
      kq::entry<kq::K3>(FormatId::q3_k),     {formats::row(FormatId::q8_k).index, &kq::K8::rows, true},
  };
  return kTable;
}

}  // namespace onnxq::simd::ONNXQ_SIMD_NS
