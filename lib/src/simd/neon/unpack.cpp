// Unpack row kernels for AArch64 NEON: 16 codes of BITS bits come from 2*BITS bytes; one tbl gives
// every code a 16-bit window (its byte and the next, or zero when the code fits in one byte), a
// per-lane ushl by minus the code's bit offset moves it to the bottom, and xtn narrows. (3, 5)
// spreads 16 group bytes over 80 codes with tbl and finds the digits with byte multiplies. Row
// ends go to the portable kernel. AArch64 has no non-temporal stores worth their rules here, so
// the streaming entries stay null (the regular kernels). Internal linkage except the exported table.
#if !defined(__aarch64__) || !defined(__ARM_NEON)
#error "simd/neon/unpack.cpp is for AArch64"
#endif

#include <arm_neon.h>

#include <cstring>

#include "simd/unpack_kernels.hpp"

namespace onnxq::simd {
namespace {

template <unsigned BITS>
struct BitsTables {
  std::uint8_t windows[2][16]{};  // codes 0..7 / 8..15: byte pairs (first byte, next byte or 0xFF)
  std::int16_t shifts[2][8]{};    // minus each code's bit offset in its window
  constexpr BitsTables() {
    for (unsigned j = 0; j < 16; ++j) {
      const unsigned first = j * BITS, lo = first / 8;
      const unsigned hi = first % 8 + BITS > 8 ? lo + 1 : 0xFF;  // 0xFF: tbl gives 0
      windows[j / 8][2 * (j % 8)] = static_cast<std::uint8_t>(lo);
      windows[j / 8][2 * (j % 8) + 1] = static_cast<std::uint8_t>(hi);
      shifts[j / 8][j % 8] = static_cast<std::int16_t>(-static_cast<int>(first % 8));
    }
  }
};

template <unsigned BITS>
void bits_row(const std::uint8_t* in, std::uint8_t* out, std::uint64_t count, std::uint64_t in_bytes) {
  if constexpr (BITS == 8) {
    std::memcpy(out, in, count);
  } else {
    static constexpr BitsTables<BITS> t;
    const uint8x16_t win0 = vld1q_u8(t.windows[0]), win1 = vld1q_u8(t.windows[1]);
    const int16x8_t sh0 = vld1q_s16(t.shifts[0]), sh1 = vld1q_s16(t.shifts[1]);
    const uint8x16_t mask = vdupq_n_u8(static_cast<std::uint8_t>((1u << BITS) - 1));
    std::uint64_t c = 0, pos = 0;
    // 16 codes per step, from a 16-byte load that stays inside the row.
    for (; c + 16 <= count && pos + 16 <= in_bytes; c += 16, pos += 2 * BITS) {
      const uint8x16_t bytes = vld1q_u8(in + pos);
      const uint16x8_t a = vshlq_u16(vreinterpretq_u16_u8(vqtbl1q_u8(bytes, win0)), sh0);
      const uint16x8_t b = vshlq_u16(vreinterpretq_u16_u8(vqtbl1q_u8(bytes, win1)), sh1);
      vst1q_u8(out + c, vandq_u8(vcombine_u8(vmovn_u16(a), vmovn_u16(b)), mask));
    }
    if (c < count) unpack_bits_row_portable(BITS, in + pos, out + c, count - c, in_bytes - pos);
  }
}

// (3, 5), as in simd/avx2/unpack.cpp: q = ceil(256 v / 243) (here v + ((13 v + 242) * 270 >> 16),
// exact for v < 243), then digit i of a group is ((q * 3^(4-i)) mod 256) * 3 >> 8. 16 groups make
// 80 codes in five vectors; tbl places each code's group (codes 16m..16m+15 use groups < 16).
struct Radix3Tables {
  std::uint8_t group[5][16]{};
  std::uint8_t power[5][16]{};  // 3^(4-i) for the code's digit i
  constexpr Radix3Tables() {
    constexpr std::uint8_t pow3[5] = {81, 27, 9, 3, 1};
    for (unsigned m = 0; m < 5; ++m)
      for (unsigned t = 0; t < 16; ++t) {
        const unsigned p = 16 * m + t;
        group[m][t] = static_cast<std::uint8_t>(p / 5);
        power[m][t] = pow3[p % 5];
      }
  }
};

// ceil(256 v / 243) for each byte v < 243.
inline uint8x16_t scaled(uint8x16_t v) {
  const auto half = [](uint8x8_t x) {
    const uint16x8_t t = vmlaq_n_u16(vdupq_n_u16(242), vmovl_u8(x), 13);
    const uint16x4_t lo = vshrn_n_u32(vmull_n_u16(vget_low_u16(t), 270), 16);
    const uint16x4_t hi = vshrn_n_u32(vmull_high_n_u16(t, 270), 16);
    return vmovn_u16(vaddq_u16(vmovl_u8(x), vcombine_u16(lo, hi)));
  };
  return vcombine_u8(half(vget_low_u8(v)), half(vget_high_u8(v)));
}

bool radix3_row(const std::uint8_t* in, std::uint8_t* out, std::uint64_t count) {
  static constexpr Radix3Tables t;
  std::uint64_t c = 0, g = 0;
  for (; c + 80 <= count; c += 80, g += 16) {
    const uint8x16_t v = vld1q_u8(in + g);
    if (vmaxvq_u8(v) >= 243) return false;
    const uint8x16_t q = scaled(v);
    for (unsigned m = 0; m < 5; ++m) {
      const uint8x16_t x = vmulq_u8(vqtbl1q_u8(q, vld1q_u8(t.group[m])), vld1q_u8(t.power[m]));  // mod 256
      const uint8x16_t three = vdupq_n_u8(3);
      const uint8x8_t lo = vshrn_n_u16(vmull_u8(vget_low_u8(x), vget_low_u8(three)), 8);
      const uint8x8_t hi = vshrn_n_u16(vmull_high_u8(x, three), 8);
      vst1q_u8(out + c + 16 * m, vcombine_u8(lo, hi));
    }
  }
  return c >= count || unpack_radix3_row_portable(in + g, out + c, count - c);
}

#define ONNXQ_NEON_BITS_ROWS                                                                                   \
  {                                                                                                            \
    nullptr, &bits_row<1>, &bits_row<2>, &bits_row<3>, &bits_row<4>, &bits_row<5>, &bits_row<6>, &bits_row<7>, \
        &bits_row<8>                                                                                           \
  }

}  // namespace

namespace neon {
const UnpackKernels& unpack_kernels() {
  static const UnpackKernels k{"neon", ONNXQ_NEON_BITS_ROWS, {}, &radix3_row, nullptr};
  return k;
}
}  // namespace neon

}  // namespace onnxq::simd
