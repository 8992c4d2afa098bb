// 16-lane float32/int32 vectors for the AArch64 NEON path: four q registers each, and 16-byte
// vectors. Same interface as vec_avx2.hpp and vec_avx512.hpp (the families in *-inl.hpp are
// written once against it); internal linkage inside onnxq::simd::neon. Products and sums stay
// separate instructions (vmulq, then vaddq/vsubq) as in the scalar reference, which is compiled
// with -ffp-contract=off like this code: a fused vfmaq would round once where the reference
// rounds twice.
#pragma once

#if !defined(__aarch64__) || !defined(__ARM_NEON)
#error "vec_neon.hpp is for AArch64 (NEON is part of its base architecture)"
#endif

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>

#define ONNXQ_SIMD_NS neon

namespace onnxq::simd::neon {
namespace {

struct VF {
  float32x4_t v[4];
};
struct VI {
  int32x4_t v[4];
};

template <class F>
[[gnu::always_inline]] inline VF map_f(F f) {
  return {f(0), f(1), f(2), f(3)};
}
template <class F>
[[gnu::always_inline]] inline VI map_i(F f) {
  return {f(0), f(1), f(2), f(3)};
}

inline VF vf_set1(float x) {
  const float32x4_t v = vdupq_n_f32(x);
  return {v, v, v, v};
}
// Lanes 0..7 get a, lanes 8..15 get b.
inline VF vf_set2(float a, float b) {
  const float32x4_t va = vdupq_n_f32(a), vb = vdupq_n_f32(b);
  return {va, va, vb, vb};
}
inline VF operator*(VF a, VF b) {
  return map_f([&](int k) { return vmulq_f32(a.v[k], b.v[k]); });
}
inline VF operator+(VF a, VF b) {
  return map_f([&](int k) { return vaddq_f32(a.v[k], b.v[k]); });
}
inline VF operator-(VF a, VF b) {
  return map_f([&](int k) { return vsubq_f32(a.v[k], b.v[k]); });
}

// All-ones in lane j of quarter k (lane 4k + j) when bit 4k + j of bits is set.
inline uint32x4_t lanes_of_bits4(unsigned bits, int k) {
  static constexpr std::uint32_t kBit[4] = {1, 2, 4, 8};
  return vtstq_u32(vdupq_n_u32((bits >> (4 * k)) & 15), vld1q_u32(kBit));
}
// Flips the sign of lane k when bit k of mask is set (exactly x * -1.0 for non-NaN x).
inline VF negate_where(VF x, unsigned mask) {
  return map_f([&](int k) {
    const uint32x4_t sign = vandq_u32(lanes_of_bits4(mask, k), vdupq_n_u32(0x80000000u));
    return vreinterpretq_f32_u32(veorq_u32(vreinterpretq_u32_f32(x.v[k]), sign));
  });
}
// No mask registers: a sign mask in memory is cheaper as a row of lane masks than bit tests.
constexpr bool kMaskRegisters = false;
// Lane k is a when bit k of mask is set, else b.
inline VF select_bits(unsigned mask, VF a, VF b) {
  return map_f([&](int k) { return vbslq_f32(lanes_of_bits4(mask, k), a.v[k], b.v[k]); });
}

// 16 floats from two rows of 8 / four rows of 4 (anywhere in memory).
inline VF vf_rows8(const float* a, const float* b) {
  return {vld1q_f32(a), vld1q_f32(a + 4), vld1q_f32(b), vld1q_f32(b + 4)};
}
inline VF vf_rows4(const float* a, const float* b, const float* c, const float* d) {
  return {vld1q_f32(a), vld1q_f32(b), vld1q_f32(c), vld1q_f32(d)};
}
inline void store_f(float* p, VF v) {
  for (int k = 0; k < 4; ++k) vst1q_f32(p + 4 * k, v.v[k]);
}
// Flips sign bits: x xor (8 lanes at a, 8 lanes at b) (sign-mask rows of float_grids()).
inline VF xor_rows8(VF x, const float* a, const float* b) {
  const VF m = vf_rows8(a, b);
  return map_f([&](int k) {
    return vreinterpretq_f32_u32(veorq_u32(vreinterpretq_u32_f32(x.v[k]), vreinterpretq_u32_f32(m.v[k])));
  });
}

// ---- 16-byte vectors (the families treat them as unsigned unless they widen them with vi_i8). ----

using VB = uint8x16_t;

inline VB load16(const std::uint8_t* p) { return vld1q_u8(p); }
// 8 bytes in the low half, zeros above.
inline VB load8(const std::uint8_t* p) { return vcombine_u8(vld1_u8(p), vdup_n_u8(0)); }
inline VB set1_bytes(std::uint8_t x) { return vdupq_n_u8(x); }
// The 4 bytes of w, little-endian, four times.
inline VB bytes_u32x4(std::uint32_t w) { return vreinterpretq_u8_u32(vdupq_n_u32(w)); }
// The 8 bytes of lo, then the 8 bytes of hi, little-endian.
inline VB bytes_u64x2(std::uint64_t lo, std::uint64_t hi) { return vcombine_u8(vcreate_u8(lo), vcreate_u8(hi)); }
inline VB add_bytes(VB a, VB b) { return vaddq_u8(a, b); }
inline VB sub_bytes(VB a, VB b) { return vsubq_u8(a, b); }
inline VB or_bytes(VB a, VB b) { return vorrq_u8(a, b); }
template <int K>
inline VB shl_bytes(VB x) {
  return vshlq_n_u8(x, K);
}
inline VB nib_lo(VB x) { return vandq_u8(x, vdupq_n_u8(15)); }
inline VB nib_hi(VB x) { return vshrq_n_u8(x, 4); }
// (x >> n) & mask on each byte, n a run-time shift count (a left shift by -n).
inline VB bits_of(VB x, int n, int mask) {
  return vandq_u8(vshlq_u8(x, vdupq_n_s8(static_cast<std::int8_t>(-n))), vdupq_n_u8(static_cast<std::uint8_t>(mask)));
}
// The low 8 bytes of a, then the low 8 bytes of b.
inline VB join_lo8(VB a, VB b) { return vcombine_u8(vget_low_u8(a), vget_low_u8(b)); }
// table[c] for 16 codes c < 16, table 16 bytes in memory: one tbl.
inline VB lookup16(const void* table, VB codes) {
  return vqtbl1q_u8(vld1q_u8(static_cast<const std::uint8_t*>(table)), codes);
}
// Byte k is value's byte k where bit k of mask is set, else 0.
inline VB bytes_where(unsigned mask, VB value) {
  static constexpr std::uint8_t kBit[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
  const VB spread = vcombine_u8(vdup_n_u8(static_cast<std::uint8_t>(mask & 0xFF)),
                                vdup_n_u8(static_cast<std::uint8_t>((mask >> 8) & 0xFF)));
  return vandq_u8(vtstq_u8(spread, vld1q_u8(kBit)), value);
}

// binary16 to float32 with fcvt: exact, subnormals and NaN included (spec §3.1).
inline float half_bits_to_f32(std::uint32_t h) {
  const float16x4_t x = vreinterpret_f16_u16(vdup_n_u16(static_cast<std::uint16_t>(h)));
  return vgetq_lane_f32(vcvt_f32_f16(x), 0);
}

// ---- 16-lane int32 vectors. ----

inline VI vi_set1(std::int32_t x) {
  const int32x4_t v = vdupq_n_s32(x);
  return {v, v, v, v};
}
inline VI vi_load(const std::int32_t* p) {
  return {vld1q_s32(p), vld1q_s32(p + 4), vld1q_s32(p + 8), vld1q_s32(p + 12)};
}
inline VI vi_u8(VB b) {
  const uint16x8_t lo = vmovl_u8(vget_low_u8(b)), hi = vmovl_high_u8(b);
  return {vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(lo))), vreinterpretq_s32_u32(vmovl_high_u16(lo)),
          vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(hi))), vreinterpretq_s32_u32(vmovl_high_u16(hi))};
}
inline VI vi_i8(VB b) {
  const int8x16_t s = vreinterpretq_s8_u8(b);
  const int16x8_t lo = vmovl_s8(vget_low_s8(s)), hi = vmovl_high_s8(s);
  return {vmovl_s16(vget_low_s16(lo)), vmovl_high_s16(lo), vmovl_s16(vget_low_s16(hi)), vmovl_high_s16(hi)};
}
inline VI operator&(VI a, VI b) {
  return map_i([&](int k) { return vandq_s32(a.v[k], b.v[k]); });
}
inline VI operator+(VI a, VI b) {
  return map_i([&](int k) { return vaddq_s32(a.v[k], b.v[k]); });
}
inline VI operator-(VI a, VI b) {
  return map_i([&](int k) { return vsubq_s32(a.v[k], b.v[k]); });
}
inline VI mullo(VI a, VI b) {
  return map_i([&](int k) { return vmulq_s32(a.v[k], b.v[k]); });
}
// Logical right shift by per-lane counts (a left shift by the negated count), as x86 vpsrlvd.
inline VI srlv(VI a, VI counts) {
  return map_i(
      [&](int k) { return vreinterpretq_s32_u32(vshlq_u32(vreinterpretq_u32_s32(a.v[k]), vnegq_s32(counts.v[k]))); });
}
template <int K>
inline VI srli(VI a) {
  return map_i([&](int k) { return vreinterpretq_s32_u32(vshrq_n_u32(vreinterpretq_u32_s32(a.v[k]), K)); });
}
template <int K>
inline VI slli(VI a) {
  return map_i([&](int k) { return vshlq_n_s32(a.v[k], K); });
}
inline VF to_f(VI a) {
  return map_f([&](int k) { return vcvtq_f32_s32(a.v[k]); });
}

// Loads of 16 plain values.
inline VF load_f32(const std::uint8_t* p) {
  const float* f = reinterpret_cast<const float*>(p);
  return {vld1q_f32(f), vld1q_f32(f + 4), vld1q_f32(f + 8), vld1q_f32(f + 12)};
}
inline VF load_f16(const std::uint8_t* p) {
  const uint16x8_t a = vld1q_u16(reinterpret_cast<const std::uint16_t*>(p));
  const uint16x8_t b = vld1q_u16(reinterpret_cast<const std::uint16_t*>(p) + 8);
  return {vcvt_f32_f16(vreinterpret_f16_u16(vget_low_u16(a))), vcvt_high_f32_f16(vreinterpretq_f16_u16(a)),
          vcvt_f32_f16(vreinterpret_f16_u16(vget_low_u16(b))), vcvt_high_f32_f16(vreinterpretq_f16_u16(b))};
}
inline VF load_bf16(const std::uint8_t* p) {
  const uint16x8_t a = vld1q_u16(reinterpret_cast<const std::uint16_t*>(p));
  const uint16x8_t b = vld1q_u16(reinterpret_cast<const std::uint16_t*>(p) + 8);
  return {vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(a), 16)), vreinterpretq_f32_u32(vshll_high_n_u16(a, 16)),
          vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(b), 16)), vreinterpretq_f32_u32(vshll_high_n_u16(b, 16))};
}

// ---- Output writers: put(i, v) writes elements i..i+15 (spec §4 conversions). ----
// AArch64 has no non-temporal store intrinsic worth its alignment rules here (stnp is a pair
// hint), so the streaming writers store as the regular ones do.

template <bool Stream>
struct OutF32 {
  static constexpr bool kStreaming = Stream;
  using Regular = OutF32<false>;
  static constexpr std::size_t kElementBytes = 4;
  float* p;
  explicit OutF32(void* dst) : p(static_cast<float*>(dst)) {}
  void put(std::size_t i, VF v) const {
    for (int k = 0; k < 4; ++k) vst1q_f32(p + i + 4 * k, v.v[k]);
  }
  void finish() const {}
};

// fcvtn rounds as FPCR says: round to nearest even (Linux's default), subnormals kept (FZ off),
// overflow to inf, NaN quieted with its top payload bits, as vcvtps2ph does.
inline uint16x8_t to_f16(float32x4_t lo, float32x4_t hi) {
  return vreinterpretq_u16_f16(vcvt_high_f16_f32(vcvt_f16_f32(lo), hi));
}

// The integer formula of spec §4: NaN keeps its top half with the quiet bit set; anything else
// rounds to nearest even on the low 16 bits.
inline uint16x4_t bf16_lanes(float32x4_t x) {
  const uint32x4_t u = vreinterpretq_u32_f32(x);
  const uint32x4_t top = vshrq_n_u32(u, 16);
  const uint32x4_t nan = vcgtq_u32(vandq_u32(u, vdupq_n_u32(0x7FFFFFFFu)), vdupq_n_u32(0x7F800000u));
  const uint32x4_t lsb = vandq_u32(top, vdupq_n_u32(1));
  const uint32x4_t r = vshrq_n_u32(vaddq_u32(vaddq_u32(u, vdupq_n_u32(0x7FFFu)), lsb), 16);
  const uint32x4_t q = vorrq_u32(top, vdupq_n_u32(0x0040u));
  return vmovn_u32(vbslq_u32(nan, q, r));
}
inline uint16x8_t to_bf16(float32x4_t lo, float32x4_t hi) { return vcombine_u16(bf16_lanes(lo), bf16_lanes(hi)); }

template <bool Stream>
struct OutF16 {
  static constexpr bool kStreaming = Stream;
  using Regular = OutF16<false>;
  static constexpr std::size_t kElementBytes = 2;
  std::uint16_t* p;
  explicit OutF16(void* dst) : p(static_cast<std::uint16_t*>(dst)) {}
  void put(std::size_t i, VF v) const {
    vst1q_u16(p + i, to_f16(v.v[0], v.v[1]));
    vst1q_u16(p + i + 8, to_f16(v.v[2], v.v[3]));
  }
  void finish() const {}
};

template <bool Stream>
struct OutBF16 {
  static constexpr bool kStreaming = Stream;
  using Regular = OutBF16<false>;
  static constexpr std::size_t kElementBytes = 2;
  std::uint16_t* p;
  explicit OutBF16(void* dst) : p(static_cast<std::uint16_t*>(dst)) {}
  void put(std::size_t i, VF v) const {
    vst1q_u16(p + i, to_bf16(v.v[0], v.v[1]));
    vst1q_u16(p + i + 8, to_bf16(v.v[2], v.v[3]));
  }
  void finish() const {}
};

// float32 to float64 is exact.
template <bool Stream>
struct OutF64 {
  static constexpr bool kStreaming = Stream;
  using Regular = OutF64<false>;
  static constexpr std::size_t kElementBytes = 8;
  double* p;
  explicit OutF64(void* dst) : p(static_cast<double*>(dst)) {}
  void put(std::size_t i, VF v) const {
    for (int k = 0; k < 4; ++k) {
      vst1q_f64(p + i + 4 * k, vcvt_f64_f32(vget_low_f32(v.v[k])));
      vst1q_f64(p + i + 4 * k + 2, vcvt_high_f64_f32(v.v[k]));
    }
  }
  void finish() const {}
};

}  // namespace
}  // namespace onnxq::simd::neon
