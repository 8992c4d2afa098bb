// Quantizers of the ternary formats tq1_0 and tq2_0 (spec §8) and of the 1- and 2-bit formats
// q1_0 and q2_0 (spec §10), equal byte for byte to ggml_quantize_chunk. ggml ignores the importance
// matrix for all four (q1_0/q2_0 take the same row function with or without it).
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "quantize/kernels.hpp"
#include "quantize/rounding.hpp"

namespace onnxq::quantize {

namespace {

using detail::lround_low32;
using detail::round_away_i32;
using detail::store_half;

// Ternary scale: d = amax, and 1/d (inf once amax is below ~2.9e-39; then every value, 0 * inf
// included, becomes lroundf's LONG_MIN, an int 0, and the trit is 1 as for a zero).
inline float ternary_scale(const float* x, float& id) {
  float amax = 0.0f;
  for (int j = 0; j < 256; ++j) {
    const float a = std::fabs(x[j]);
    amax = amax > a ? amax : a;
  }
  id = amax != 0.0f ? 1.0f / amax : 0.0f;
  return amax;
}

// -1, 0, 1 as 0, 1, 2 (ggml: lroundf(x * id) + 1 into an int).
inline int trit_of(float v, float id) { return lround_low32(v * id) + 1; }

// Five (or four, then shifted up one place) trits, the first most significant, as the byte
// ceil(t * 256 / 243): the decoder reads them back as base-3 fixed point.
inline std::uint8_t pack_trits(const float* x, std::size_t stride, int count, float id) {
  std::uint8_t q = 0;  // ggml accumulates in a uint8_t
  for (int n = 0; n < count; ++n)
    q = static_cast<std::uint8_t>(q * 3 + trit_of(x[static_cast<std::size_t>(n) * stride], id));
  if (count == 4) q = static_cast<std::uint8_t>(q * 3);
  return static_cast<std::uint8_t>((static_cast<std::uint16_t>(q) * 256 + 242) / 243);
}

// tq1_0 (54 bytes: qs[48], qh[4], d): elements 0..159 in qs[0..31] (element m + 32n is trit n of
// byte m), 160..239 in qs[32..47] (m + 16n), 240..255 in qh (j + 4m, four trits).
void tq1_0_block(const float* x, std::uint8_t* b) {
  float id;
  const float d = ternary_scale(x, id);
  for (std::size_t m = 0; m < 32; ++m) b[m] = pack_trits(x + m, 32, 5, id);
  for (std::size_t m = 0; m < 16; ++m) b[32 + m] = pack_trits(x + 160 + m, 16, 5, id);
  for (std::size_t j = 0; j < 4; ++j) b[48 + j] = pack_trits(x + 240 + j, 4, 4, id);
  store_half(b + 52, d);
}

// tq2_0 (66 bytes: qs[64], d): element 128h + 32n + m is bits 2n of byte 32h + m.
void tq2_0_block(const float* x, std::uint8_t* b) {
  float id;
  const float d = ternary_scale(x, id);
  for (std::size_t h = 0; h < 2; ++h) {
    for (std::size_t m = 0; m < 32; ++m) {
      unsigned q = 0;
      for (unsigned n = 0; n < 4; ++n) q += static_cast<unsigned>(trit_of(x[128 * h + 32 * n + m], id) & 3) << (2 * n);
      b[32 * h + m] = static_cast<std::uint8_t>(q);
    }
  }
  store_half(b + 64, d);
}

// q1_0 (18 bytes: d, qs[16]): d is the mean magnitude, bit j set when element j is >= 0 (-0 too).
void q1_0_block(const float* x, std::uint8_t* b) {
  float sum_abs = 0.0f;
  for (int j = 0; j < 128; ++j) sum_abs += std::fabs(x[j]);
  store_half(b, sum_abs / 128.0f);
  for (std::size_t k = 0; k < 16; ++k) {
    unsigned bits = 0;
    for (unsigned i = 0; i < 8; ++i) bits |= static_cast<unsigned>(x[8 * k + i] >= 0.0f) << i;
    b[2 + k] = static_cast<std::uint8_t>(bits);
  }
}

// q2_0 (18 bytes: d, qs[16]): d = amax, level roundf(x / d) + 1 clamped to [0, 3], element j in
// bits 2(j % 4) of byte j / 4. Once 1/d overflows, the conversion gives INT32_MIN and level 0.
void q2_0_block(const float* x, std::uint8_t* b) {
  float amax = 0.0f;
  for (int j = 0; j < 64; ++j) {
    const float a = std::fabs(x[j]);
    if (a > amax) amax = a;
  }
  const float id = amax > 0.0f ? 1.0f / amax : 0.0f;
  store_half(b, amax);
  for (std::size_t k = 0; k < 16; ++k) {
    unsigned bits = 0;
    for (unsigned i = 0; i < 4; ++i) {
      const std::int32_t r = round_away_i32(x[4 * k + i] * id);
      const int q = r < 0 ? 0 : (r > 2 ? 3 : r + 1);  // r + 1 clamped, without INT32_MIN + 1 arithmetic
      bits |= static_cast<unsigned>(q) << (2 * i);
    }
    b[2 + k] = static_cast<std::uint8_t>(bits);
  }
}

template <void (*OneBlock)(const float*, std::uint8_t*), std::size_t kQk, std::size_t kBytes>
void each_block(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row) {
  const std::size_t blocks = rows * (n_per_row / kQk);
  for (std::size_t i = 0; i < blocks; ++i) OneBlock(x + i * kQk, dst + i * kBytes);
}

}  // namespace

void quantize_tq1_0(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row, const float*) {
  each_block<tq1_0_block, 256, 54>(x, dst, rows, n_per_row);
}

void quantize_tq2_0(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row, const float*) {
  each_block<tq2_0_block, 256, 66>(x, dst, rows, n_per_row);
}

void quantize_q1_0(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row, const float*) {
  each_block<q1_0_block, 128, 18>(x, dst, rows, n_per_row);
}

void quantize_q2_0(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row, const float*) {
  each_block<q2_0_block, 64, 18>(x, dst, rows, n_per_row);
}

}  // namespace onnxq::quantize
