// Quantizers of the FP4 formats mxfp4 (one E8M0 exponent per 32) and nvfp4 (one UE4M3 scale per
// 16, four per 64-element block) (spec §9), equal byte for byte to ggml_quantize_chunk, which
// ignores the importance matrix for both. Each value takes the first E2M1 code of least rounded
// error |kvalue * s - x| (kvalues_fp4 holds doubled E2M1 values; s is half the scale).
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "quantize/kernels.hpp"

namespace onnxq::quantize {

namespace {

// floor(2^m * ln 2) for m = 0..7: how many floats at the top of a normal binade glibc's log2f
// rounds up to the next integer, when that integer's neighbourhood has the float spacing of the
// binade [2^m, 2^(m+1)) (see glibc_floor_log2).
constexpr int kRoundUpCounts[8] = {0, 1, 2, 5, 11, 22, 44, 88};

// floorf(log2f(a)) as ggml computes it with glibc, for a finite a > 0, without libm. For a in
// [2^k, 2^(k+1)), log2(a) lies in [k, k + 1), but log2f rounds the values within half a float
// spacing of k + 1 up to k + 1: those of the top floats of the binade, a = 2^(k+1) (1 - j 2^-24),
// whose log2 is k + 1 - j 2^-24 / ln 2. The spacing next to k + 1 (on the side log2 approaches
// it from) is that of the binade [2^m, 2^(m+1)) of |k + 1|, so j < 2^m ln 2: kRoundUpCounts[m]
// floats, and 2^(-126-k) times fewer in the subnormal binades. The dev harness checks this
// against glibc's floorf(log2f(a)) for every positive finite float (glibc's log2f is monotonic).
inline int glibc_floor_log2(float a) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(a);
  int k;                // the exact floor(log2(a))
  std::uint32_t below;  // floats from a up to (excluding) 2^(k+1)
  int shift = 0;        // subnormal binades hold 2^shift times fewer floats
  if (u >= 0x00800000u) {
    k = static_cast<int>(u >> 23) - 127;
    below = ((u >> 23) + 1) << 23;
  } else {
    k = static_cast<int>(std::bit_width(u)) - 1 - 149;
    below = 1u << (k + 150);
    shift = -126 - k;
  }
  below -= u;
  const int next = k + 1;  // the integer log2f may round up to
  int m = -1;              // binade of |next| on the side log2(a) approaches it from
  if (next > 0) m = static_cast<int>(std::bit_width(static_cast<unsigned>(next - 1))) - 1;
  if (next < 0) m = static_cast<int>(std::bit_width(static_cast<unsigned>(-next))) - 1;
  const int count = m < 0 ? 0 : (kRoundUpCounts[m] >> shift);
  return static_cast<std::uint32_t>(count) >= below ? next : k;
}

// ggml_e8m0_to_fp32_half: 2^(e - 128), e = 0 and 1 being subnormals.
inline float e8m0_half(std::uint8_t e) {
  if (e < 2) return std::bit_cast<float>(0x00200000u << e);
  return std::bit_cast<float>(static_cast<std::uint32_t>(e - 1) << 23);
}

// ggml_fp32_to_ue4m3: saturating at 448 (code 0x7E), mantissa rounded half up (not to even),
// subnormals (code = man, value man * 2^-9) from (int)(x * 512 + 0.5).
inline std::uint8_t to_ue4m3(float x) {
  if (!(x > 0.0f)) return 0;
  if (x > 448.0f) x = 448.0f;
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  int exp = static_cast<int>((bits >> 23) & 0xFF) - 127 + 7;
  if (exp <= 0) {
    const int man = static_cast<int>(x * 512.0f + 0.5f);  // x < 2^-6: in range of int
    if (man < 1) return 0;
    return static_cast<std::uint8_t>(man > 7 ? 7 : man);
  }
  if (exp >= 15) return 0x7E;
  int man = static_cast<int>((bits >> 20) & 7) + static_cast<int>((bits >> 19) & 1);
  if (man > 7) {
    man = 0;
    if (++exp >= 15) return 0x7E;
  }
  return static_cast<std::uint8_t>((exp << 3) | man);
}

// ggml_ue4m3_to_fp32 (already halved): exact, as ldexpf is.
inline float ue4m3_half(std::uint8_t c) {
  if (c == 0 || c == 0x7F) return 0.0f;
  const int exp = (c >> 3) & 15, man = c & 7;
  if (exp == 0) return static_cast<float>(man) * 0x1p-10f;
  return static_cast<float>(8 + man) * std::bit_cast<float>(static_cast<std::uint32_t>(exp - 11 + 127) << 23);
}

// The non-negative half of kvalues_fp4 (codes 0..7; code 8 + i is -kE2m1[i]), as floats.
constexpr float kE2m1[8] = {0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 6.0f, 8.0f, 12.0f};

// ggml's best_index_mxfp4: the first code of least fabsf(kvalue * s - x), strictly smaller errors
// only. kvalue * s is exact (s is 2^n, or (8 + m) 2^n), so for x >= 0 the negative codes and code 8
// (a second zero) never beat code 0's |x|, and for x < 0 code 8 + i's error equals
// |kE2m1[i] s - |x||, rounding being symmetric: one search over codes 0..7 with |x|, then the sign.
// Errors are floats >= 0 (never NaN), which order as their bit patterns do: the least key
// (error bits, code) is the first code of least error, found with integer minima, no branches.
inline std::uint8_t nearest_fp4(float x, float s) {
  const float a = std::fabs(x);
  std::uint64_t best = static_cast<std::uint64_t>(std::bit_cast<std::uint32_t>(a)) << 3;  // code 0: |0 * s - a|
  for (std::uint64_t i = 1; i < 8; ++i) {
    const float err = std::fabs(kE2m1[i] * s - a);
    const std::uint64_t key = (static_cast<std::uint64_t>(std::bit_cast<std::uint32_t>(err)) << 3) | i;
    best = key < best ? key : best;
  }
  const unsigned code = static_cast<unsigned>(best & 7);
  return static_cast<std::uint8_t>(code | ((x < 0.0f && code != 0) ? 8u : 0u));
}

// mxfp4 (17 bytes: e, qs[16]): e = floor(log2 amax) - 2 + 127 as a float cast to uint8 (it wraps
// mod 256 for amax below 2^-125, as cvttss2si's low byte does), 0 when amax is 0.
void mxfp4_block(const float* x, std::uint8_t* b) {
  float amax = 0.0f;
  for (int j = 0; j < 32; ++j)
    if (amax < std::fabs(x[j])) amax = std::fabs(x[j]);
  const std::uint8_t e = amax > 0.0f ? static_cast<std::uint8_t>(glibc_floor_log2(amax) + 125) : 0;
  const float s = e8m0_half(e);
  b[0] = e;
  for (std::size_t j = 0; j < 16; ++j)
    b[1 + j] = static_cast<std::uint8_t>(nearest_fp4(x[j], s) | (nearest_fp4(x[j + 16], s) << 4));
}

// nvfp4 (36 bytes: d[4], qs[32]): sub-block s of 16 has scale code d[s] = ue4m3(amax / 6), and
// its element j, j + 8 share byte 8s + j.
void nvfp4_block(const float* x, std::uint8_t* b) {
  for (std::size_t sb = 0; sb < 4; ++sb) {
    const float* xs = x + 16 * sb;
    float amax = 0.0f;
    for (int j = 0; j < 16; ++j)
      if (amax < std::fabs(xs[j])) amax = std::fabs(xs[j]);
    const std::uint8_t code = to_ue4m3(amax / 6.0f);
    const float s = ue4m3_half(code);
    b[sb] = code;
    for (std::size_t j = 0; j < 8; ++j)
      b[4 + 8 * sb + j] = static_cast<std::uint8_t>(nearest_fp4(xs[j], s) | (nearest_fp4(xs[j + 8], s) << 4));
  }
}

template <void (*OneBlock)(const float*, std::uint8_t*), std::size_t kQk, std::size_t kBytes>
void each_block(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row) {
  const std::size_t blocks = rows * (n_per_row / kQk);
  for (std::size_t i = 0; i < blocks; ++i) OneBlock(x + i * kQk, dst + i * kBytes);
}

}  // namespace

void quantize_mxfp4(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row, const float*) {
  each_block<mxfp4_block, 32, 17>(x, dst, rows, n_per_row);
}

void quantize_nvfp4(const float* x, std::uint8_t* dst, std::size_t rows, std::size_t n_per_row, const float*) {
  each_block<nvfp4_block, 64, 36>(x, dst, rows, n_per_row);
}

}  // namespace onnxq::quantize
