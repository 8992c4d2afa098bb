// K-quant encoders: q2_k, q3_k, q4_k, q5_k, q6_k, q8_k (the inverse of reference/kquant.cpp).
// Without importance each block follows ggml's quantize_row_qX_K_ref, with importance its
// quantize_row_qX_K_impl; the float operations and their order are ggml's (the folder is built
// with -ffp-contract=off), integer narrowing is ggml's too (a level that overflows a byte wraps
// exactly as the C assignment does), so the bytes equal ggml_quantize_chunk's.
//
// Every block is independent: each kernel is a loop over blocks calling a one-block encoder, with
// the importance slice of the block's column range (the same slice for every row).
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "formats/block_layouts.hpp"
#include "onnxq/core/half.hpp"
#include "quantize/kernels.hpp"
#include "quantize/kquant_scales.hpp"
#include "quantize/rounding.hpp"
#include "quantize/scale_search.hpp"

namespace onnxq::quantize {

using namespace formats;  // the layout structs

namespace {

constexpr int kQK = 256;  // elements per super-block

// Same rounding as nearest_int, inline for the per-element loops.
inline int round_magic(float v) {
  const float biased = v + 12582912.f;
  const std::int32_t bits = std::bit_cast<std::int32_t>(biased);
  return (bits & 0x007fffff) - 0x00400000;
}

inline int clamp_int(int v, int lo, int hi) {
  const int upper = v < hi ? v : hi;
  return lo > upper ? lo : upper;
}

// ggml's GGML_FP32_TO_FP16: RNE like float_to_half, but a NaN (a scale that overflowed to inf/inf
// or 0*inf on huge inputs) becomes sign | 0x7E00 with no payload.
inline std::uint16_t to_half(float v) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(v);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>(((u >> 16) & 0x8000u) | 0x7E00u);
  return float_to_half(v);
}

inline void put_half(std::uint8_t* b, std::uint16_t h) {
  b[0] = static_cast<std::uint8_t>(h & 0xFF);
  b[1] = static_cast<std::uint8_t>(h >> 8);
}

// Stores a scale as half and returns what a decoder reads back from it.
inline float store_half(std::uint8_t* b, float v) {
  const std::uint16_t h = to_half(v);
  put_half(b, h);
  return half_to_float(h);
}

// The importance paths' weight q * sqrt(sigma2 + x^2), and the sum of a sub-block's weights. Once
// the sum of squares overflows, q = 0 gives 0 * inf: x86's NaN (see x86_nan), which make_qp_quants
// and make_qx_quants carry into the stored d and dmin.
inline float importance_weight(float q, float sigma2, float x) {
  return detail::x86_nan(q * std::sqrt(sigma2 + x * x), q, sigma2, x);
}
inline float sum_weights(const float* w, int n) {
  float s = 0;
  for (int l = 0; l < n; ++l) s = detail::x86_nan(s + w[l], s, w[l]);  // inf - inf on negative importance
  return s;
}

// Sum of squares of the 256 values of a super-block, in element order.
inline float sum_squares(const float* x, int n) {
  float s = 0;
  for (int l = 0; l < n; ++l) s += x[l] * x[l];
  return s;
}

// Packs four 2-bit levels per byte: byte 32*h + l holds elements 128*h + l + 32*p at bits 2p.
inline void pack_2bit(const std::uint8_t* L, std::uint8_t* qs) {
  for (int j = 0; j < kQK; j += 128) {
    for (int l = 0; l < 32; ++l) {
      qs[j / 4 + l] =
          static_cast<std::uint8_t>(L[j + l] | (L[j + l + 32] << 2) | (L[j + l + 64] << 4) | (L[j + l + 96] << 6));
    }
  }
}

// The 6-bit scale and min of sub-block j of a q4_k / q5_k block (12 scale bytes).
inline void scale_min_k4(int j, const std::uint8_t* q, std::uint8_t& d, std::uint8_t& m) {
  if (j < 4) {
    d = q[j] & 63;
    m = q[j + 4] & 63;
  } else {
    d = static_cast<std::uint8_t>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    m = static_cast<std::uint8_t>((q[j + 4] >> 4) | ((q[j - 0] >> 6) << 4));
  }
}

// Writes eight 6-bit (scale, min) pairs into the 12 scale bytes of q4_k / q5_k.
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

// Requantizes each 32-element sub-block against the stored (half-rounded) scale and min, so the
// levels fit what a decoder will reconstruct; a sub-block with a zero scale keeps the search levels.
inline void requantize_k4(const float* x, const std::uint8_t* S, float d_all, float m_all, int nmax, std::uint8_t* L) {
  for (int j = 0; j < 8; ++j) {
    std::uint8_t sc, m;
    scale_min_k4(j, S, sc, m);
    const float d = d_all * static_cast<float>(sc);
    if (!(d != 0)) continue;  // ggml's `if (!d)`: NaN goes on
    const float dm = m_all * static_cast<float>(m);
    for (int ii = 0; ii < 32; ++ii) {
      L[32 * j + ii] = static_cast<std::uint8_t>(clamp_int(round_magic((x[32 * j + ii] + dm) / d), 0, nmax));
    }
  }
}

// ---------------------------------------------------------------- q2_k

void q2_k_block(const float* x, std::uint8_t* b, const float* qw) {
  std::uint8_t L[kQK];
  std::uint8_t Laux[16];
  float weights[16];
  float mins[16];
  float scales[16];
  float sw[16];
  if (!qw) {
    // Weight |x|, mean absolute error.
    for (int j = 0; j < 16; ++j) {
      for (int l = 0; l < 16; ++l) weights[l] = std::fabs(x[16 * j + l]);
      scales[j] = make_qkx2_quants(16, 3, x + 16 * j, weights, L + 16 * j, &mins[j], Laux, -0.5f, 0.1f, 15, true);
    }
  } else {
    // Importance path: weights qw * sqrt(sigma^2 + x^2), then a weighted fit of the 4-bit scales.
    const float sigma2 = sum_squares(x, kQK) / static_cast<float>(kQK);
    for (int j = 0; j < 16; ++j) {
      const float* q = qw + 16 * j;
      for (int l = 0; l < 16; ++l) weights[l] = importance_weight(q[l], sigma2, x[16 * j + l]);
      sw[j] = sum_weights(weights, 16);
      scales[j] = make_qkx3_quants(16, 3, x + 16 * j, weights, L + 16 * j, &mins[j], Laux, -0.9f, 0.05f, 36, false);
    }
  }
  const Q2KScaleBase base = q2_k_scales(scales, mins, qw ? sw : nullptr, b);
  const float d_all = base.d, m_all = base.dmin;
  const std::uint8_t* S = b + offsetof(BlockQ2_K, scales);

  for (int j = 0; j < 16; ++j) {
    const float d = d_all * static_cast<float>(S[j] & 0xF);
    if (!(d != 0)) continue;
    const float m = m_all * static_cast<float>(S[j] >> 4);
    for (int ii = 0; ii < 16; ++ii) {
      L[16 * j + ii] = static_cast<std::uint8_t>(clamp_int(round_magic((x[16 * j + ii] + m) / d), 0, 3));
    }
  }
  pack_2bit(L, b + offsetof(BlockQ2_K, qs));
}

// ---------------------------------------------------------------- q3_k

void q3_k_block(const float* x, std::uint8_t* b, const float* qw) {
  std::int8_t L[kQK];
  float scales[16];
  std::uint8_t* S = b + offsetof(BlockQ3_K, scales);
  std::memset(S, 0, 12);

  // Scale j as 6 bits (offset by 32): low 4 bits in byte j (j < 8) or the high nibble of byte
  // j - 8, top 2 bits in byte 8 + j % 4 at bit 2 * (j / 4).
  auto put_scale = [S](int j, int l) {
    if (j < 8) {
      S[j] = static_cast<std::uint8_t>(l & 0xF);
    } else {
      S[j - 8] = static_cast<std::uint8_t>(S[j - 8] | ((l & 0xF) << 4));
    }
    l >>= 4;
    S[j % 4 + 8] = static_cast<std::uint8_t>(S[j % 4 + 8] | (l << (2 * (j / 4))));
  };

  std::uint16_t d_half;
  if (!qw) {
    float max_scale = 0, amax = 0;
    for (int j = 0; j < 16; ++j) {
      scales[j] = make_q3_quants(16, 4, x + 16 * j, L + 16 * j, true);
      const float scale = std::fabs(scales[j]);
      if (scale > amax) {
        amax = scale;
        max_scale = scales[j];
      }
    }
    if (max_scale != 0) {  // NaN goes on, as in ggml's `if (max_scale)`
      const float iscale = -32.f / max_scale;
      for (int j = 0; j < 16; ++j) {
        // ggml narrows to int8 before clamping.
        const std::int8_t l8 = static_cast<std::int8_t>(round_magic(iscale * scales[j]));
        put_scale(j, clamp_int(l8, -32, 31) + 32);
      }
      d_half = to_half(1 / iscale);
    } else {
      d_half = to_half(0.f);
    }
  } else {
    float weight[16];
    float sw[16];
    std::int8_t Ls[16];
    const float sigma2 = (2 * sum_squares(x, kQK)) / static_cast<float>(kQK);
    for (int j = 0; j < 16; ++j) {
      const float* q = qw + 16 * j;
      for (int l = 0; l < 16; ++l) weight[l] = importance_weight(q[l], sigma2, x[16 * j + l]);
      sw[j] = sum_weights(weight, 16);
      scales[j] = make_qx_quants(16, 4, x + 16 * j, L + 16 * j, 1, weight);
    }
    const float d_block = make_qx_quants(16, 32, scales, Ls, 1, sw);
    for (int j = 0; j < 16; ++j) put_scale(j, Ls[j]);
    d_half = to_half(d_block);
  }
  put_half(b + offsetof(BlockQ3_K, d), d_half);
  const float d_all = half_to_float(d_half);

  for (int j = 0; j < 16; ++j) {
    int sc = j < 8 ? (S[j] & 0xF) : (S[j - 8] >> 4);
    sc = (sc | (((S[8 + j % 4] >> (2 * (j / 4))) & 3) << 4)) - 32;
    const float d = d_all * static_cast<float>(sc);
    if (!(d != 0)) continue;
    for (int ii = 0; ii < 16; ++ii) {
      L[16 * j + ii] = static_cast<std::int8_t>(clamp_int(round_magic(x[16 * j + ii] / d), -4, 3) + 4);
    }
  }

  // Bit 2 of level j goes to hmask byte j % 32, bit j / 32; the low 2 bits pack like q2_k.
  std::uint8_t* hmask = b + offsetof(BlockQ3_K, hmask);
  std::memset(hmask, 0, 32);
  std::uint8_t low[kQK];
  for (int j = 0; j < kQK; ++j) {
    int l = L[j];
    if (l > 3) {
      hmask[j % 32] = static_cast<std::uint8_t>(hmask[j % 32] | (1u << (j / 32)));
      l -= 4;
    }
    low[j] = static_cast<std::uint8_t>(l);
  }
  pack_2bit(low, b + offsetof(BlockQ3_K, qs));
}

// ---------------------------------------------------------------- q4_k / q5_k

// Shared scale search of q4_k (nmax 15) and q5_k (nmax 31): fills L and the block's d, dmin and
// scale bytes at b (same offsets in both layouts), returns the stored d and dmin.
template <int kNmax>
void k4_scales(const float* x, std::uint8_t* b, const float* qw, std::uint8_t* L, float& d_all, float& m_all) {
  static_assert(offsetof(BlockQ4_K, d) == offsetof(BlockQ5_K, d) &&
                offsetof(BlockQ4_K, dmin) == offsetof(BlockQ5_K, dmin) &&
                offsetof(BlockQ4_K, scales) == offsetof(BlockQ5_K, scales));
  std::uint8_t Laux[32];
  float weights[32];
  float mins[8];
  float scales[8];
  std::uint8_t ls[8], lm[8];
  std::uint8_t* S = b + offsetof(BlockQ4_K, scales);

  if (!qw) {
    // Weight = rms of the sub-block + |x|; scales and mins go to 6 bits against their maxima.
    constexpr float kRmin = kNmax == 15 ? -1.f : -0.5f;
    constexpr int kSteps = kNmax == 15 ? 20 : 15;
    float max_scale = 0, max_min = 0;
    for (int j = 0; j < 8; ++j) {
      const float av_x = std::sqrt(sum_squares(x + 32 * j, 32) / 32);
      for (int l = 0; l < 32; ++l) weights[l] = av_x + std::fabs(x[32 * j + l]);
      scales[j] =
          make_qkx2_quants(32, kNmax, x + 32 * j, weights, L + 32 * j, &mins[j], Laux, kRmin, 0.1f, kSteps, false);
      if (scales[j] > max_scale) max_scale = scales[j];
      if (mins[j] > max_min) max_min = mins[j];
    }
    const float inv_scale = max_scale > 0 ? 63.f / max_scale : 0.f;
    const float inv_min = max_min > 0 ? 63.f / max_min : 0.f;
    for (int j = 0; j < 8; ++j) {
      // Narrowed to a byte before the clamp, as in ggml.
      const auto s8 = static_cast<std::uint8_t>(round_magic(inv_scale * scales[j]));
      const auto m8 = static_cast<std::uint8_t>(round_magic(inv_min * mins[j]));
      ls[j] = s8 < 63 ? s8 : 63;
      lm[j] = m8 < 63 ? m8 : 63;
    }
    pack_scales_k4(ls, lm, S);
    d_all = store_half(b + offsetof(BlockQ4_K, d), max_scale / 63.f);
    m_all = store_half(b + offsetof(BlockQ4_K, dmin), max_min / 63.f);
  } else {
    float sw[8];
    const float sigma2 = (2 * sum_squares(x, kQK)) / static_cast<float>(kQK);
    for (int j = 0; j < 8; ++j) {
      const float* q = qw + 32 * j;
      for (int l = 0; l < 32; ++l) weights[l] = importance_weight(q[l], sigma2, x[32 * j + l]);
      sw[j] = sum_weights(weights, 32);
      scales[j] = make_qkx3_quants(32, kNmax, x + 32 * j, weights, L + 32 * j, &mins[j], Laux, -0.9f, 0.05f, 36, false);
    }
    const float d_block = make_qp_quants(8, 63, scales, ls, sw);
    const float m_block = make_qp_quants(8, 63, mins, lm, sw);
    if constexpr (kNmax == 31) {
      // Only q5_k clamps here; q4_k packs the levels as they are (a wrapped byte included).
      for (int j = 0; j < 8; ++j) {
        ls[j] = ls[j] < 63 ? ls[j] : 63;
        lm[j] = lm[j] < 63 ? lm[j] : 63;
      }
    }
    pack_scales_k4(ls, lm, S);
    d_all = store_half(b + offsetof(BlockQ4_K, d), d_block);
    m_all = store_half(b + offsetof(BlockQ4_K, dmin), m_block);
  }
}

void q4_k_block(const float* x, std::uint8_t* b, const float* qw) {
  std::uint8_t L[kQK];
  float d_all, m_all;
  k4_scales<15>(x, b, qw, L, d_all, m_all);
  requantize_k4(x, b + offsetof(BlockQ4_K, scales), d_all, m_all, 15, L);
  // Byte 32*h + l: element 64*h + l in the low nibble, 64*h + 32 + l in the high one.
  std::uint8_t* q = b + offsetof(BlockQ4_K, qs);
  for (int j = 0; j < kQK; j += 64) {
    for (int l = 0; l < 32; ++l) q[l] = static_cast<std::uint8_t>(L[j + l] | (L[j + l + 32] << 4));
    q += 32;
  }
}

void q5_k_block(const float* x, std::uint8_t* b, const float* qw) {
  std::uint8_t L[kQK];
  float d_all, m_all;
  k4_scales<31>(x, b, qw, L, d_all, m_all);
  requantize_k4(x, b + offsetof(BlockQ5_K, scales), d_all, m_all, 31, L);
  // Low nibbles as in q4_k; bit 4 of element 64*h + 32*s + l goes to qh[l], bit 2h + s.
  std::uint8_t* qh = b + offsetof(BlockQ5_K, qh);
  std::uint8_t* ql = b + offsetof(BlockQ5_K, qs);
  std::memset(qh, 0, 32);
  unsigned m1 = 1, m2 = 2;
  for (int n = 0; n < kQK; n += 64) {
    for (int j = 0; j < 32; ++j) {
      int l1 = L[n + j];
      if (l1 > 15) {
        l1 -= 16;
        qh[j] = static_cast<std::uint8_t>(qh[j] | m1);
      }
      int l2 = L[n + j + 32];
      if (l2 > 15) {
        l2 -= 16;
        qh[j] = static_cast<std::uint8_t>(qh[j] | m2);
      }
      ql[j] = static_cast<std::uint8_t>(l1 | (l2 << 4));
    }
    m1 <<= 2;
    m2 <<= 2;
    ql += 32;
  }
}

// ---------------------------------------------------------------- q6_k

void q6_k_block(const float* x, std::uint8_t* b, const float* qw) {
  std::int8_t L[kQK];
  float scales[16];
  float max_scale = 0, max_abs_scale = 0;
  for (int ib = 0; ib < 16; ++ib) {
    // The importance, when given, is used raw (no sigma term) as the weight.
    const float scale = make_qx_quants(16, 32, x + 16 * ib, L + 16 * ib, 1, qw ? qw + 16 * ib : nullptr);
    scales[ib] = scale;
    const float abs_scale = std::fabs(scale);
    if (abs_scale > max_abs_scale) {
      max_abs_scale = abs_scale;
      max_scale = scale;
    }
  }
  if (max_abs_scale < 1e-15f) {  // GROUP_MAX_EPS: an all-zero block
    std::memset(b, 0, sizeof(BlockQ6_K));
    return;
  }
  auto* S = b + offsetof(BlockQ6_K, scales);
  const float iscale = -128.f / max_scale;
  const std::uint16_t d_half = to_half(1 / iscale);
  put_half(b + offsetof(BlockQ6_K, d), d_half);
  for (int ib = 0; ib < 16; ++ib) {
    const int l = round_magic(iscale * scales[ib]);
    S[ib] = static_cast<std::uint8_t>(static_cast<std::int8_t>(l < 127 ? l : 127));
  }
  const float d_all = half_to_float(d_half);
  for (int j = 0; j < 16; ++j) {
    const float d = d_all * static_cast<float>(static_cast<std::int8_t>(S[j]));
    if (!(d != 0)) continue;
    for (int ii = 0; ii < 16; ++ii) {
      L[16 * j + ii] = static_cast<std::int8_t>(clamp_int(round_magic(x[16 * j + ii] / d), -32, 31) + 32);
    }
  }
  // Low nibbles: ql[64*h + l] holds elements 128*h + l (low) and +64 (high), ql[64*h + 32 + l]
  // elements +32 and +96; the top 2 bits of all four go to qh[32*h + l].
  std::uint8_t* ql = b + offsetof(BlockQ6_K, ql);
  std::uint8_t* qh = b + offsetof(BlockQ6_K, qh);
  for (int j = 0; j < kQK; j += 128) {
    for (int l = 0; l < 32; ++l) {
      const int v0 = L[j + l], v1 = L[j + l + 32], v2 = L[j + l + 64], v3 = L[j + l + 96];
      ql[l + 0] = static_cast<std::uint8_t>((v0 & 0xF) | ((v2 & 0xF) << 4));
      ql[l + 32] = static_cast<std::uint8_t>((v1 & 0xF) | ((v3 & 0xF) << 4));
      qh[l] = static_cast<std::uint8_t>((v0 >> 4) | ((v1 >> 4) << 2) | ((v2 >> 4) << 4) | ((v3 >> 4) << 6));
    }
    ql += 64;
    qh += 32;
  }
}

// ---------------------------------------------------------------- q8_k

void q8_k_block(const float* x, std::uint8_t* b) {
  float max = 0, amax = 0;
  for (int j = 0; j < kQK; ++j) {
    const float ax = std::fabs(x[j]);
    if (ax > amax) {
      amax = ax;
      max = x[j];
    }
  }
  if (!(amax != 0)) {  // all zero: d, levels and the sums all stay zero
    std::memset(b, 0, sizeof(BlockQ8_K));
    return;
  }
  // -127 rather than -128 keeps every level in [-127, 127].
  const float iscale = -127.f / max;
  auto* qs = b + offsetof(BlockQ8_K, qs);
  for (int j = 0; j < kQK; ++j) {
    const int v = round_magic(iscale * x[j]);
    qs[j] = static_cast<std::uint8_t>(static_cast<std::int8_t>(v < 127 ? v : 127));
  }
  auto* bsums = b + offsetof(BlockQ8_K, bsums);
  for (int j = 0; j < 16; ++j) {
    int sum = 0;
    for (int ii = 0; ii < 16; ++ii) sum += static_cast<std::int8_t>(qs[16 * j + ii]);
    const auto s16 = static_cast<std::uint16_t>(static_cast<std::int16_t>(sum));
    bsums[2 * j] = static_cast<std::uint8_t>(s16 & 0xFF);
    bsums[2 * j + 1] = static_cast<std::uint8_t>(s16 >> 8);
  }
  const auto d = std::bit_cast<std::uint32_t>(1 / iscale);
  auto* db = b + offsetof(BlockQ8_K, d);
  for (int k = 0; k < 4; ++k) db[k] = static_cast<std::uint8_t>(d >> (8 * k));
}

// Runs a one-block encoder over every block; block i of a row uses importance[256 * i ...].
template <std::size_t kBytes, void (*Encode)(const float*, std::uint8_t*, const float*)>
void run_blocks(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row, const float* importance) {
  const std::size_t per_row = n_per_row / kQK;
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t i = 0; i < per_row; ++i) {
      const std::size_t blk = r * per_row + i;
      Encode(x + blk * kQK, dst + blk * kBytes, importance ? importance + i * kQK : nullptr);
    }
  }
}

}  // namespace

void quantize_q2_k(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row,
                   const float* importance) {
  run_blocks<sizeof(BlockQ2_K), q2_k_block>(x, dst, rows, n_per_row, importance);
}

void quantize_q3_k(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row,
                   const float* importance) {
  run_blocks<sizeof(BlockQ3_K), q3_k_block>(x, dst, rows, n_per_row, importance);
}

void quantize_q4_k(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row,
                   const float* importance) {
  run_blocks<sizeof(BlockQ4_K), q4_k_block>(x, dst, rows, n_per_row, importance);
}

void quantize_q5_k(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row,
                   const float* importance) {
  run_blocks<sizeof(BlockQ5_K), q5_k_block>(x, dst, rows, n_per_row, importance);
}

void quantize_q6_k(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row,
                   const float* importance) {
  run_blocks<sizeof(BlockQ6_K), q6_k_block>(x, dst, rows, n_per_row, importance);
}

void quantize_q8_k(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row, const float*) {
  const std::size_t blocks = rows * (n_per_row / kQK);
  for (std::size_t i = 0; i < blocks; ++i) q8_k_block(x + i * kQK, dst + i * sizeof(BlockQ8_K));
}

Q2KScaleBase q2_k_scales(const float* scales, const float* mins, const float* sum_weights, std::uint8_t* block) {
  std::uint8_t* S = block + offsetof(BlockQ2_K, scales);
  Q2KScaleBase base;
  if (sum_weights) {
    std::uint8_t Ls[16], Lm[16];
    base.d = store_half(block + offsetof(BlockQ2_K, d), make_qp_quants(16, 15, scales, Ls, sum_weights));
    base.dmin = store_half(block + offsetof(BlockQ2_K, dmin), make_qp_quants(16, 15, mins, Lm, sum_weights));
    for (int j = 0; j < 16; ++j) S[j] = static_cast<std::uint8_t>(Ls[j] | (Lm[j] << 4));
    return base;
  }
  float max_scale = 0, max_min = 0;
  for (int j = 0; j < 16; ++j) {
    if (scales[j] > max_scale) max_scale = scales[j];
    if (mins[j] > max_min) max_min = mins[j];
  }
  const float q4scale = 15.f;
  std::memset(S, 0, 16);
  if (max_scale > 0) {
    const float iscale = q4scale / max_scale;
    for (int j = 0; j < 16; ++j) S[j] = static_cast<std::uint8_t>(round_magic(iscale * scales[j]));
  }
  base.d = store_half(block + offsetof(BlockQ2_K, d), max_scale > 0 ? max_scale / q4scale : 0.f);
  if (max_min > 0) {
    const float iscale = q4scale / max_min;
    for (int j = 0; j < 16; ++j) S[j] = static_cast<std::uint8_t>(S[j] | (round_magic(iscale * mins[j]) << 4));
  }
  base.dmin = store_half(block + offsetof(BlockQ2_K, dmin), max_min > 0 ? max_min / q4scale : 0.f);
  return base;
}

}  // namespace onnxq::quantize
