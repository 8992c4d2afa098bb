// Quantizers of the 32-element formats q4_0, q4_1, q5_0, q5_1, q8_0 and q8_1 (spec §5), equal
// byte for byte to ggml_quantize_chunk (quantize_row_q8_1_ref for q8_1). Without an importance
// matrix ggml takes its round-to-nearest row functions; with one, q4_0/q5_0 search a symmetric scale
// (make_qx_quants) and q4_1/q5_1 a scale and minimum (make_qkx3_quants), weighting each value by
// importance * sqrt(sigma2 + x^2). q8_0 and q8_1 have no importance path.
//
// Every float operation keeps ggml's operands and order; the blocks of a row are independent
// except for the importance path's row variance sigma2.
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "quantize/kernels.hpp"
#include "quantize/rounding.hpp"
#include "quantize/scale_search.hpp"

namespace onnxq::quantize {

namespace {

using detail::round_away_i32;
using detail::store_half;
using detail::store_u32;
using detail::x86_nan;
using detail::x86_trunc_u8;

constexpr std::size_t kQk = 32;

// signed_absmax and min_max keep four independent chains (element j in lane j % 4) instead of
// ggml's one, for speed: the result is the same value with the same bits, as argued at each.

// ggml's signed absmax: the first value of largest magnitude (its sign makes q4_0/q5_0's scale),
// or 0 when all are zeros. Magnitudes (never NaN) order as their bit patterns do, so the largest key
// (magnitude bits, 31 - j) picks it out; integer maxima merge in any order, hence four lanes.
inline float signed_absmax(const float* x) {
  std::uint64_t lane[4] = {0, 0, 0, 0};
  for (std::size_t j = 0; j < kQk; j += 4) {
    for (std::size_t k = 0; k < 4; ++k) {
      const std::uint64_t key =
          (static_cast<std::uint64_t>(std::bit_cast<std::uint32_t>(std::fabs(x[j + k]))) << 5) | (31 - (j + k));
      lane[k] = key > lane[k] ? key : lane[k];
    }
  }
  std::uint64_t best = lane[0];
  for (std::size_t k = 1; k < 4; ++k) best = lane[k] > best ? lane[k] : best;
  return (best >> 5) != 0 ? x[31 - (best & 31)] : 0.0f;
}

inline float absmax(const float* x) {
  float amax = 0.0f;
  for (std::size_t j = 0; j < kQk; ++j) {
    const float a = std::fabs(x[j]);
    amax = amax > a ? amax : a;
  }
  return amax;
}

// ggml's minimum and maximum, each the first value that compares equal to the extreme. Values that
// compare equal have the same bits except +0 and -0, so lanes may be merged in any order and only
// a zero result needs fixing: it is then the first zero of the block (nothing before it was
// smaller, and later zeros do not replace it).
inline void min_max(const float* x, float& min, float& max) {
  float lo[4], hi[4];
  for (std::size_t k = 0; k < 4; ++k) {
    lo[k] = 3.40282347e+38f;
    hi[k] = -3.40282347e+38f;
  }
  for (std::size_t j = 0; j < kQk; j += 4) {
    for (std::size_t k = 0; k < 4; ++k) {
      lo[k] = x[j + k] < lo[k] ? x[j + k] : lo[k];
      hi[k] = x[j + k] > hi[k] ? x[j + k] : hi[k];
    }
  }
  min = lo[0];
  max = hi[0];
  for (std::size_t k = 1; k < 4; ++k) {
    min = lo[k] < min ? lo[k] : min;
    max = hi[k] > max ? hi[k] : max;
  }
  if (min == 0.0f || max == 0.0f) {
    std::size_t z = 0;
    while (x[z] != 0.0f) ++z;
    if (min == 0.0f) min = x[z];
    if (max == 0.0f) max = x[z];
  }
}

// Packs 32 levels of 5 bits: low nibbles as q4 (element j and j+16 share byte j), bit 4 of
// element j into bit j of the little-endian qh word.
inline void pack5(const std::uint8_t* levels, std::uint8_t* qh_out, std::uint8_t* qs) {
  std::uint32_t qh = 0;
  for (std::size_t j = 0; j < 16; ++j) {
    const std::uint32_t lo = levels[j], hi = levels[j + 16];
    qs[j] = static_cast<std::uint8_t>((lo & 0x0F) | ((hi & 0x0F) << 4));
    qh |= ((lo & 0x10u) >> 4) << j;
    qh |= ((hi & 0x10u) >> 4) << (j + 16);
  }
  store_u32(qh_out, qh);
}

// Round-to-nearest symmetric block: d = max / -2^(bits-1), level = (int8)(x * (1/d) + 2^(bits-1) + 1/2)
// capped at 2^bits - 1. The cast truncates: the sum is >= 1/2 unless 1/d overflowed to inf, where
// ggml's cast of inf or NaN gives level 0 (see rounding.hpp).
template <int kBits>
inline std::uint8_t rtn_level(float v, float id) {
  constexpr float kBias = static_cast<float>(1 << (kBits - 1)) + 0.5f;
  constexpr int kTop = (1 << kBits) - 1;
  const int l = static_cast<std::int8_t>(x86_trunc_u8(v * id + kBias));
  return static_cast<std::uint8_t>(l < kTop ? l : kTop);
}

template <int kBits>
inline float rtn_scale(const float* x, float& id) {
  const float d = signed_absmax(x) / -static_cast<float>(1 << (kBits - 1));
  id = d != 0.0f ? 1.0f / d : 0.0f;
  return d;
}

void q4_0_rtn(const float* x, std::uint8_t* b) {
  float id;
  store_half(b, rtn_scale<4>(x, id));
  for (std::size_t j = 0; j < 16; ++j)
    b[2 + j] = static_cast<std::uint8_t>(rtn_level<4>(x[j], id) | (rtn_level<4>(x[j + 16], id) << 4));
}

void q5_0_rtn(const float* x, std::uint8_t* b) {
  float id;
  store_half(b, rtn_scale<5>(x, id));
  std::uint8_t l[kQk];
  for (std::size_t j = 0; j < kQk; ++j) l[j] = rtn_level<5>(x[j], id);
  pack5(l, b + 2, b + 6);
}

void q4_1_rtn(const float* x, std::uint8_t* b) {
  float min, max;
  min_max(x, min, max);
  const float d = (max - min) / 15.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  store_half(b, d);
  store_half(b + 2, min);
  for (std::size_t j = 0; j < 16; ++j) {
    // (int8)(v + 0.5f) capped at 15; a wrapped negative byte would survive the cap as ggml's does.
    int lo = static_cast<std::int8_t>(x86_trunc_u8((x[j] - min) * id + 0.5f));
    int hi = static_cast<std::int8_t>(x86_trunc_u8((x[j + 16] - min) * id + 0.5f));
    lo = lo < 15 ? lo : 15;
    hi = hi < 15 ? hi : 15;
    b[4 + j] = static_cast<std::uint8_t>(static_cast<std::uint8_t>(lo) | (static_cast<std::uint8_t>(hi) << 4));
  }
}

void q5_1_rtn(const float* x, std::uint8_t* b) {
  float min, max;
  min_max(x, min, max);
  const float d = (max - min) / 31.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  store_half(b, d);
  store_half(b + 2, min);
  std::uint8_t l[kQk];
  for (std::size_t j = 0; j < kQk; ++j) l[j] = x86_trunc_u8((x[j] - min) * id + 0.5f);  // no cap in ggml
  pack5(l, b + 4, b + 8);
}

// q8_0 and q8_1: d = amax / 127, each value rounded half away from zero (ggml's roundf).
inline float q8_levels(const float* x, std::int8_t* q) {
  const float d = absmax(x) / 127.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  for (std::size_t j = 0; j < kQk; ++j) q[j] = static_cast<std::int8_t>(round_away_i32(x[j] * id));
  return d;
}

void q8_0_block(const float* x, std::uint8_t* b) {
  std::int8_t q[kQk];
  store_half(b, q8_levels(x, q));
  for (std::size_t j = 0; j < kQk; ++j) b[2 + j] = static_cast<std::uint8_t>(q[j]);
}

void q8_1_block(const float* x, std::uint8_t* b) {
  std::int8_t q[kQk];
  const float d = q8_levels(x, q);
  int sum = 0;  // ggml adds the halves pairwise; an int sum is order-free
  for (std::size_t j = 0; j < kQk; ++j) {
    b[4 + j] = static_cast<std::uint8_t>(q[j]);
    sum += q[j];
  }
  store_half(b, d);
  store_half(b + 2, static_cast<float>(sum) * d);
}

// Each block of every row through `one_block` (the round-to-nearest paths: no row state).
template <void (*OneBlock)(const float*, std::uint8_t*), std::size_t kBytes>
void each_block(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row) {
  const std::size_t blocks = rows * (n_per_row / kQk);
  for (std::size_t i = 0; i < blocks; ++i) OneBlock(x + i * kQk, dst + i * kBytes);
}

// The importance paths' row variance: the float sum of squares in row order over the row length.
inline float row_sigma2(const float* x, std::size_t n) {
  float sum_x2 = 0.0f;
  for (std::size_t j = 0; j < n; ++j) sum_x2 += x[j] * x[j];
  return sum_x2 / static_cast<float>(static_cast<std::int64_t>(n));
}

// 0 * inf where the row's sum of squares overflowed: x86's NaN (x86_nan), which the scale search's
// sums carry to the stored scale.
inline void block_weights(const float* x, const float* importance, float sigma2, float* w) {
  for (std::size_t j = 0; j < kQk; ++j)
    w[j] = x86_nan(importance[j] * std::sqrt(sigma2 + x[j] * x[j]), importance[j], sigma2, x[j]);
}

// Importance path of q4_0 (nmax 8) and q5_0 (nmax 16): levels in [0, 2 nmax).
template <int kNmax, std::size_t kBytes>
void symmetric_weighted(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row,
                        const float* importance) {
  const std::size_t nb = n_per_row / kQk;
  float w[kQk];
  std::int8_t l[kQk];
  for (std::size_t r = 0; r < rows; ++r, x += n_per_row) {
    const float sigma2 = row_sigma2(x, n_per_row);
    for (std::size_t ib = 0; ib < nb; ++ib) {
      const float* xb = x + ib * kQk;
      std::uint8_t* b = dst + (r * nb + ib) * kBytes;
      block_weights(xb, importance + ib * kQk, sigma2, w);
      store_half(b, make_qx_quants(static_cast<int>(kQk), kNmax, xb, l, 1, w));
      if constexpr (kNmax == 8) {
        for (std::size_t j = 0; j < 16; ++j) b[2 + j] = static_cast<std::uint8_t>(l[j] | (l[j + 16] << 4));
      } else {
        std::uint8_t u[kQk];
        for (std::size_t j = 0; j < kQk; ++j) u[j] = static_cast<std::uint8_t>(l[j]);
        pack5(u, b + 2, b + 6);
      }
    }
  }
}

// Importance path of q4_1 (nmax 15) and q5_1 (nmax 31): ggml's fixed search grid -0.9 + 0.05 k,
// k = 0..36, without the MAD error.
template <int kNmax, std::size_t kBytes>
void affine_weighted(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row,
                     const float* importance) {
  const std::size_t nb = n_per_row / kQk;
  float w[kQk];
  std::uint8_t l[kQk], scratch[kQk];
  for (std::size_t r = 0; r < rows; ++r, x += n_per_row) {
    const float sigma2 = row_sigma2(x, n_per_row);
    for (std::size_t ib = 0; ib < nb; ++ib) {
      const float* xb = x + ib * kQk;
      std::uint8_t* b = dst + (r * nb + ib) * kBytes;
      block_weights(xb, importance + ib * kQk, sigma2, w);
      float min;
      const float d = make_qkx3_quants(static_cast<int>(kQk), kNmax, xb, w, l, &min, scratch, -0.9f, 0.05f, 36, false);
      store_half(b, d);
      store_half(b + 2, -min);
      if constexpr (kNmax == 15) {
        for (std::size_t j = 0; j < 16; ++j) b[4 + j] = static_cast<std::uint8_t>(l[j] | (l[j + 16] << 4));
      } else {
        pack5(l, b + 4, b + 8);
      }
    }
  }
}

}  // namespace

void quantize_q4_0(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row,
                   const float* importance) {
  if (importance) return symmetric_weighted<8, 18>(x, dst, rows, n_per_row, importance);
  each_block<q4_0_rtn, 18>(x, dst, rows, n_per_row);
}

void quantize_q4_1(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row,
                   const float* importance) {
  if (importance) return affine_weighted<15, 20>(x, dst, rows, n_per_row, importance);
  each_block<q4_1_rtn, 20>(x, dst, rows, n_per_row);
}

void quantize_q5_0(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row,
                   const float* importance) {
  if (importance) return symmetric_weighted<16, 22>(x, dst, rows, n_per_row, importance);
  each_block<q5_0_rtn, 22>(x, dst, rows, n_per_row);
}

void quantize_q5_1(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row,
                   const float* importance) {
  if (importance) return affine_weighted<31, 24>(x, dst, rows, n_per_row, importance);
  each_block<q5_1_rtn, 24>(x, dst, rows, n_per_row);
}

// ggml ignores the importance matrix for q8_0; q8_1 is never quantized with one.
void quantize_q8_0(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row, const float*) {
  each_block<q8_0_block, 34>(x, dst, rows, n_per_row);
}

void quantize_q8_1(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row, const float*) {
  each_block<q8_1_block, 36>(x, dst, rows, n_per_row);
}

}  // namespace onnxq::quantize
