// The shared scale searches (see scale_search.hpp). Every expression below keeps ggml's operand
// order and types (int operands converted to float where ggml's C converts them), because the
// bytes only match ggml's when each float operation is the same one; this file is compiled with
// -ffp-contract=off so no multiply-add is fused. Comparisons keep ggml's direction and strictness
// (they decide ties and how NaN propagates once huge inputs overflow the sums).
#include "quantize/scale_search.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "quantize/rounding.hpp"

namespace onnxq::quantize {

using detail::x86_nan;

namespace {

// GROUP_MAX_EPS of ggml-quants.c: a group whose largest magnitude is below it counts as all zero.
constexpr float kGroupMaxEps = 1e-15f;

// Groups up to this size get their make_qx_quants weights precomputed on the stack.
constexpr int kWeightBuffer = 256;

// Adding 1.5 * 2^23 leaves the rounded integer in the low mantissa bits. Outside +-4194303 the
// result is garbage, but the same garbage as ggml's (whose assert is compiled out), so keep it.
inline int round_magic(float v) {
  const float biased = v + 12582912.f;
  const std::int32_t bits = std::bit_cast<std::int32_t>(biased);
  return (bits & 0x007fffff) - 0x00400000;
}

inline int clamp_int(int v, int lo, int hi) {
  // ggml's MAX(lo, MIN(hi, v)).
  const int upper = v < hi ? v : hi;
  return lo > upper ? lo : upper;
}

// Per-element weight of make_qx_quants when no importance is given.
inline float qx_weight(const float* qw, int rmse_type, float xi, int i) {
  if (qw) return qw[i];
  switch (rmse_type) {
    case 1: return xi * xi;
    case 2: return 1.0f;
    case 3: return std::fabs(xi);
    default: return std::sqrt(std::fabs(xi));
  }
}

// The value with the largest magnitude (the first one on ties) and that magnitude.
inline void signed_absmax(int n, const float* x, float& max, float& amax) {
  max = 0;
  amax = 0;
  for (int i = 0; i < n; ++i) {
    const float ax = std::fabs(x[i]);
    if (ax > amax) {
      amax = ax;
      max = x[i];
    }
  }
}

// Shared body of make_qkx2_quants and make_qkx3_quants: they differ only in the default weight
// (qkx2 requires weights) and in the degenerate test (max == min versus max <= min).
template <bool kLessOrEqualIsFlat>
float asymmetric_search(int n, int nmax, const float* x, const float* weights, std::uint8_t* L, float* the_min,
                        std::uint8_t* Laux, float rmin, float rdelta, int nstep, bool use_mad) {
  auto weight = [&](int i) { return weights ? weights[i] : x[i] * x[i]; };
  float min = x[0];
  float max = x[0];
  float sum_w = weight(0);
  float sum_x = sum_w * x[0];
  for (int i = 1; i < n; ++i) {
    if (x[i] < min) min = x[i];
    if (x[i] > max) max = x[i];
    const float w = weight(i);
    sum_w += w;
    sum_x += w * x[i];
  }
  if (min > 0) min = 0;
  const bool flat = kLessOrEqualIsFlat ? (max <= min) : (max == min);
  if (flat) {
    std::memset(L, 0, static_cast<std::size_t>(n));
    *the_min = -min;
    return 0.f;
  }
  float iscale = static_cast<float>(nmax) / (max - min);
  float scale = 1 / iscale;
  float best_error = 0;
  for (int i = 0; i < n; ++i) {
    const int l = round_magic(iscale * (x[i] - min));
    L[i] = static_cast<std::uint8_t>(clamp_int(l, 0, nmax));
    float diff = ((scale * static_cast<float>(L[i])) + min) - x[i];
    diff = use_mad ? std::fabs(diff) : diff * diff;
    best_error += weight(i) * diff;
  }
  if (nstep < 1) {
    *the_min = -min;
    return scale;
  }
  // Each candidate is measured from the current best min, which a better candidate moves.
  for (int is = 0; is <= nstep; ++is) {
    iscale = ((rmin + rdelta * static_cast<float>(is)) + static_cast<float>(nmax)) / (max - min);
    float sum_l = 0, sum_l2 = 0, sum_xl = 0;
    for (int i = 0; i < n; ++i) {
      const int l = clamp_int(round_magic(iscale * (x[i] - min)), 0, nmax);
      Laux[i] = static_cast<std::uint8_t>(l);
      const float w = weight(i);
      const float fl = static_cast<float>(l);
      sum_l += w * fl;
      sum_l2 += (w * fl) * fl;
      sum_xl += (w * fl) * x[i];
    }
    const float D = (sum_w * sum_l2) - (sum_l * sum_l);
    if (D > 0) {
      float this_scale = ((sum_w * sum_xl) - (sum_x * sum_l)) / D;
      float this_min = ((sum_l2 * sum_x) - (sum_l * sum_xl)) / D;
      if (this_min > 0) {
        // A positive offset is not representable (the stored min is subtracted): refit the scale alone.
        this_min = 0;
        this_scale = sum_xl / sum_l2;
      }
      float cur_error = 0;
      for (int i = 0; i < n; ++i) {
        float diff = ((this_scale * static_cast<float>(Laux[i])) + this_min) - x[i];
        diff = use_mad ? std::fabs(diff) : diff * diff;
        cur_error += weight(i) * diff;
      }
      if (cur_error < best_error) {
        std::memcpy(L, Laux, static_cast<std::size_t>(n));
        best_error = cur_error;
        scale = this_scale;
        min = this_min;
      }
    }
  }
  *the_min = -min;
  return scale;
}

}  // namespace

int nearest_int(float x) { return round_magic(x); }

float make_qx_quants(int n, int nmax, const float* x, std::int8_t* levels, int rmse_type, const float* weights) {
  float max, amax;
  signed_absmax(n, x, max, amax);
  if (amax < kGroupMaxEps) {
    std::memset(levels, 0, static_cast<std::size_t>(n));
    return 0.f;
  }
  const float fnmax = static_cast<float>(nmax);
  // The scale maps the extreme value to -nmax, so its sign follows that value's.
  float iscale = static_cast<float>(-nmax) / max;
  if (rmse_type == 0) {
    for (int i = 0; i < n; ++i) {
      levels[i] = static_cast<std::int8_t>(nmax + clamp_int(round_magic(iscale * x[i]), -nmax, nmax - 1));
    }
    return 1 / iscale;
  }
  bool return_early = false;
  if (rmse_type < 0) {
    rmse_type = -rmse_type;
    return_early = true;
  }
  // The weights are a pure function of x: computing them once up front gives the same floats.
  float wbuf[kWeightBuffer];
  const float* wts = weights;
  if (!wts && n <= kWeightBuffer) {
    for (int i = 0; i < n; ++i) wbuf[i] = qx_weight(nullptr, rmse_type, x[i], i);
    wts = wbuf;
  }
  // Huge values overflow these sums (inf - inf, inf * 0 level): a NaN made here is x86's (see
  // x86_nan), and the scale below keeps it. The trial fits further down replace the scale only when
  // their sums compare better, which NaN sums never do, so their NaNs' signs never show.
  float sumlx = 0;
  float suml2 = 0;
  for (int i = 0; i < n; ++i) {
    const int l = clamp_int(round_magic(iscale * x[i]), -nmax, nmax - 1);
    levels[i] = static_cast<std::int8_t>(l + nmax);
    const float w = qx_weight(wts, rmse_type, x[i], i);
    const float fl = static_cast<float>(l);
    sumlx = x86_nan(sumlx + (w * x[i]) * fl, sumlx, w, x[i]);
    suml2 = x86_nan(suml2 + (w * fl) * fl, suml2, w);
  }
  float scale = suml2 != 0 ? x86_nan(sumlx / suml2, sumlx, suml2) : 0.0f;
  if (return_early) return suml2 > 0 ? x86_nan(0.5f * (scale + 1 / iscale), scale, iscale) : 1 / iscale;
  float best = scale * sumlx;
  // Try nearby scales and keep the one with the best weighted least-squares fit.
  for (int is = -9; is <= 9; ++is) {
    if (is == 0) continue;
    iscale = -(fnmax + 0.1f * static_cast<float>(is)) / max;
    sumlx = suml2 = 0;
    for (int i = 0; i < n; ++i) {
      const int l = clamp_int(round_magic(iscale * x[i]), -nmax, nmax - 1);
      const float w = qx_weight(wts, rmse_type, x[i], i);
      const float fl = static_cast<float>(l);
      sumlx += (w * x[i]) * fl;
      suml2 += (w * fl) * fl;
    }
    if (suml2 > 0 && sumlx * sumlx > best * suml2) {
      for (int i = 0; i < n; ++i) {
        levels[i] = static_cast<std::int8_t>(nmax + clamp_int(round_magic(iscale * x[i]), -nmax, nmax - 1));
      }
      scale = x86_nan(sumlx / suml2, sumlx, suml2);  // inf / inf
      best = scale * sumlx;
    }
  }
  return scale;
}

float make_q3_quants(int n, int nmax, const float* x, std::int8_t* levels, bool do_rmse) {
  float max, amax;
  signed_absmax(n, x, max, amax);
  if (amax < kGroupMaxEps) {
    std::memset(levels, 0, static_cast<std::size_t>(n));
    return 0.f;
  }
  const float iscale = static_cast<float>(-nmax) / max;
  if (!do_rmse) {
    for (int i = 0; i < n; ++i) {
      levels[i] = static_cast<std::int8_t>(clamp_int(round_magic(iscale * x[i]), -nmax, nmax - 1) + nmax);
    }
    return 1 / iscale;
  }
  // Levels stay signed during the search and are offset by nmax at the end.
  float sumlx = 0;
  float suml2 = 0;
  for (int i = 0; i < n; ++i) {
    const int l = clamp_int(round_magic(iscale * x[i]), -nmax, nmax - 1);
    levels[i] = static_cast<std::int8_t>(l);
    const float w = x[i] * x[i];
    const float fl = static_cast<float>(l);
    sumlx += (w * x[i]) * fl;
    suml2 += (w * fl) * fl;
  }
  // Coordinate descent: move one level at a time while the weighted fit improves.
  for (int itry = 0; itry < 5; ++itry) {
    int n_changed = 0;
    for (int i = 0; i < n; ++i) {
      const float w = x[i] * x[i];
      const float li = static_cast<float>(levels[i]);
      float slx = sumlx - (w * x[i]) * li;
      if (slx > 0) {
        float sl2 = suml2 - (w * li) * li;
        int new_l = round_magic((x[i] * sl2) / slx);
        new_l = clamp_int(new_l, -nmax, nmax - 1);
        if (new_l != levels[i]) {
          const float fl = static_cast<float>(new_l);
          slx += (w * x[i]) * fl;
          sl2 += (w * fl) * fl;
          if (sl2 > 0 && (slx * slx) * suml2 > (sumlx * sumlx) * sl2) {
            levels[i] = static_cast<std::int8_t>(new_l);
            sumlx = slx;
            suml2 = sl2;
            ++n_changed;
          }
        }
      }
    }
    if (!n_changed) break;
  }
  for (int i = 0; i < n; ++i) levels[i] = static_cast<std::int8_t>(levels[i] + nmax);
  return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
}

float make_qkx2_quants(int n, int nmax, const float* x, const float* weights, std::uint8_t* levels, float* the_min,
                       std::uint8_t* scratch, float rmin, float rdelta, int nstep, bool use_mad) {
  return asymmetric_search<false>(n, nmax, x, weights, levels, the_min, scratch, rmin, rdelta, nstep, use_mad);
}

float make_qkx3_quants(int n, int nmax, const float* x, const float* weights, std::uint8_t* levels, float* the_min,
                       std::uint8_t* scratch, float rmin, float rdelta, int nstep, bool use_mad) {
  return asymmetric_search<true>(n, nmax, x, weights, levels, the_min, scratch, rmin, rdelta, nstep, use_mad);
}

float make_qp_quants(int n, int nmax, const float* x, std::uint8_t* levels, const float* quant_weights) {
  // ggml's MAX(max, x[i]): a NaN x[i] replaces the running maximum.
  float max = 0;
  for (int i = 0; i < n; ++i) max = max > x[i] ? max : x[i];
  if (max < kGroupMaxEps) {
    std::memset(levels, 0, static_cast<std::size_t>(n));
    return 0.f;
  }
  const float fnmax = static_cast<float>(nmax);
  float iscale = fnmax / max;
  // Levels are not clamped below: a negative x wraps modulo 256 in the byte, as in ggml.
  for (int i = 0; i < n; ++i) levels[i] = static_cast<std::uint8_t>(round_magic(iscale * x[i]));
  const float scale = 1 / iscale;
  float best_mse = 0;
  for (int i = 0; i < n; ++i) {
    const float diff = x[i] - scale * static_cast<float>(levels[i]);
    best_mse += (quant_weights[i] * diff) * diff;
  }
  for (int is = -4; is <= 4; ++is) {
    if (is == 0) continue;
    const float iscale_is = (0.1f * static_cast<float>(is) + fnmax) / max;
    const float scale_is = 1 / iscale_is;
    float mse = 0;
    for (int i = 0; i < n; ++i) {
      int l = round_magic(iscale_is * x[i]);
      l = nmax < l ? nmax : l;
      const float diff = x[i] - scale_is * static_cast<float>(l);
      mse += (quant_weights[i] * diff) * diff;
    }
    if (mse < best_mse) {
      best_mse = mse;
      iscale = iscale_is;
    }
  }
  float sumlx = 0;
  float suml2 = 0;
  for (int i = 0; i < n; ++i) {
    int l = round_magic(iscale * x[i]);
    l = nmax < l ? nmax : l;
    levels[i] = static_cast<std::uint8_t>(l);
    // The sums use the int level, not the (possibly wrapped) byte. A NaN made in them is x86's
    // (x86_nan); the refinement below only takes NaN-free sums.
    const float w = quant_weights[i];
    const float fl = static_cast<float>(l);
    sumlx = x86_nan(sumlx + (w * x[i]) * fl, sumlx, w, x[i]);
    suml2 = x86_nan(suml2 + (w * fl) * fl, suml2, w);
  }
  for (int itry = 0; itry < 5; ++itry) {
    int n_changed = 0;
    for (int i = 0; i < n; ++i) {
      const float w = quant_weights[i];
      const float li = static_cast<float>(levels[i]);
      float slx = sumlx - (w * x[i]) * li;
      float sl2 = suml2 - (w * li) * li;
      if (slx > 0 && sl2 > 0) {
        int new_l = round_magic((x[i] * sl2) / slx);
        new_l = nmax < new_l ? nmax : new_l;
        if (new_l != levels[i]) {
          const float fl = static_cast<float>(new_l);
          slx += (w * x[i]) * fl;
          sl2 += (w * fl) * fl;
          if ((slx * slx) * suml2 > (sumlx * sumlx) * sl2) {
            levels[i] = static_cast<std::uint8_t>(new_l);
            sumlx = slx;
            suml2 = sl2;
            ++n_changed;
          }
        }
      }
    }
    if (!n_changed) break;
  }
  return suml2 > 0.0f ? x86_nan(sumlx / suml2, sumlx, suml2) : 0.0f;
}

}  // namespace onnxq::quantize
