// The lane operations the NEON quantizer families (quantize_{iq4,kquant,legacy}-inl.hpp) need beyond
// vec_neon.hpp, written once for all of them; each family uses the subset its -inl header lists.
// Internal linkage inside onnxq::simd::neon, like the vector layer.
#pragma once

#include "simd/vec_neon.hpp"

namespace onnxq::simd::neon {
namespace {

// A lane mask: all-ones lanes in four q registers. Comparisons are ordered (false on NaN, as C's
// <, >, <=, >=, ==) except ne, which is C's != (true on NaN).
struct VM {
  uint32x4_t v[4];
};

template <class F>
[[gnu::always_inline]] inline VM map_m(F f) {
  return {f(0), f(1), f(2), f(3)};
}

inline VF vf_load(const float* p) {
  return map_f([&](int k) { return vld1q_f32(p + 4 * k); });
}

inline VF operator/(VF a, VF b) {
  return map_f([&](int k) { return vdivq_f32(a.v[k], b.v[k]); });
}

inline VF vf_sqrt(VF a) {
  return map_f([&](int k) { return vsqrtq_f32(a.v[k]); });
}

inline VF vf_abs(VF a) {
  return map_f([&](int k) { return vabsq_f32(a.v[k]); });
}

inline VF vf_max(VF a, VF b) {
  return map_f([&](int k) { return vmaxq_f32(a.v[k], b.v[k]); });
}

inline VF vf_min(VF a, VF b) {
  return map_f([&](int k) { return vminq_f32(a.v[k], b.v[k]); });
}

// The magnitude of mag with the sign of sgn.
inline VF vf_copysign(VF mag, VF sgn) {
  return map_f([&](int k) { return vbslq_f32(vdupq_n_u32(0x80000000u), sgn.v[k], mag.v[k]); });
}

// Over lanes without NaN: the order does not matter.
inline float hmax(VF a) { return vmaxvq_f32(vmaxq_f32(vmaxq_f32(a.v[0], a.v[1]), vmaxq_f32(a.v[2], a.v[3]))); }

inline float hmin(VF a) { return vminvq_f32(vminq_f32(vminq_f32(a.v[0], a.v[1]), vminq_f32(a.v[2], a.v[3]))); }

// Lane k = the largest (smallest) lane of v[k], for 16 vectors at once: each vector's four
// registers fold into one, then pairwise folds (vpmaxq: adjacent lanes of two registers) take 16
// registers to 4. Over lanes without NaN the order does not matter.
template <class Fold, class PairFold>
inline VF fold_each(const VF* v, Fold fold, PairFold pair_fold) {
  float32x4_t m[16], p[8];
  for (int k = 0; k < 16; ++k) m[k] = fold(fold(v[k].v[0], v[k].v[1]), fold(v[k].v[2], v[k].v[3]));
  for (int j = 0; j < 8; ++j) p[j] = pair_fold(m[2 * j], m[2 * j + 1]);
  return map_f([&](int k) { return pair_fold(p[2 * k], p[2 * k + 1]); });
}
inline VF lane_maxima(const VF* v) {
  return fold_each(
      v, [](float32x4_t x, float32x4_t y) { return vmaxq_f32(x, y); },
      [](float32x4_t x, float32x4_t y) { return vpmaxq_f32(x, y); });
}
inline VF lane_minima(const VF* v) {
  return fold_each(
      v, [](float32x4_t x, float32x4_t y) { return vminq_f32(x, y); },
      [](float32x4_t x, float32x4_t y) { return vpminq_f32(x, y); });
}
// Lane k = the sum of the lanes of v[k] (integers: exact in any order).
inline VI lane_sums(const VI* v) {
  VF f[16];
  for (int k = 0; k < 16; ++k) f[k] = map_f([&](int i) { return vreinterpretq_f32_s32(v[k].v[i]); });
  const VF s = fold_each(
      f,
      [](float32x4_t x, float32x4_t y) {
        return vreinterpretq_f32_s32(vaddq_s32(vreinterpretq_s32_f32(x), vreinterpretq_s32_f32(y)));
      },
      [](float32x4_t x, float32x4_t y) {
        return vreinterpretq_f32_s32(vpaddq_s32(vreinterpretq_s32_f32(x), vreinterpretq_s32_f32(y)));
      });
  VI out;
  for (int i = 0; i < 4; ++i) out.v[i] = vreinterpretq_s32_f32(s.v[i]);
  return out;
}

inline VM eq(VF a, VF b) {
  return map_m([&](int k) { return vceqq_f32(a.v[k], b.v[k]); });
}

inline VM ne(VF a, VF b) {
  return map_m([&](int k) { return vmvnq_u32(vceqq_f32(a.v[k], b.v[k])); });
}

// True where a or b is NaN (a value is equal to itself unless it is NaN).
inline VM unordered(VF a, VF b) {
  return map_m([&](int k) { return vmvnq_u32(vandq_u32(vceqq_f32(a.v[k], a.v[k]), vceqq_f32(b.v[k], b.v[k]))); });
}

inline VM lt(VF a, VF b) {
  return map_m([&](int k) { return vcltq_f32(a.v[k], b.v[k]); });
}

inline VM gt(VF a, VF b) {
  return map_m([&](int k) { return vcgtq_f32(a.v[k], b.v[k]); });
}

inline VM le(VF a, VF b) {
  return map_m([&](int k) { return vcleq_f32(a.v[k], b.v[k]); });
}

inline VM operator&(VM a, VM b) {
  return map_m([&](int k) { return vandq_u32(a.v[k], b.v[k]); });
}

inline std::uint32_t lane_bits(VM m) {
  static constexpr std::uint32_t kBit[4] = {1, 2, 4, 8};
  const uint32x4_t bit = vld1q_u32(kBit);
  std::uint32_t r = 0;
  for (int k = 0; k < 4; ++k) r |= vaddvq_u32(vandq_u32(m.v[k], bit)) << (4 * k);
  return r;
}

inline VF sel(VM m, VF a, VF b) {
  return map_f([&](int k) { return vbslq_f32(m.v[k], a.v[k], b.v[k]); });
}

inline VI sel(VM m, VI a, VI b) {
  return map_i([&](int k) { return vbslq_s32(m.v[k], a.v[k], b.v[k]); });
}

inline VI as_i(VF a) {
  return map_i([&](int k) { return vreinterpretq_s32_f32(a.v[k]); });
}

inline VI vi_min(VI a, VI b) {
  return map_i([&](int k) { return vminq_s32(a.v[k], b.v[k]); });
}

inline VI vi_max(VI a, VI b) {
  return map_i([&](int k) { return vmaxq_s32(a.v[k], b.v[k]); });
}

inline VI operator|(VI a, VI b) {
  return map_i([&](int k) { return vorrq_s32(a.v[k], b.v[k]); });
}

// x86's cvttps2dq: truncation, INT32_MIN for NaN and out of range (fcvtzs would saturate, and give
// 0 for NaN), as rounding.hpp's x86_trunc_i32.
inline VI trunc_x86(VF a) {
  return map_i([&](int k) {
    const uint32x4_t in_range = vcaltq_f32(a.v[k], vdupq_n_f32(2147483648.0f));
    return vbslq_s32(in_range, vcvtq_s32_f32(a.v[k]), vdupq_n_s32(INT32_MIN));
  });
}

// x86's cvtps2dq with round to nearest even: INT32_MIN for NaN and out of range.
inline VI round_x86(VF a) {
  return map_i([&](int k) {
    const uint32x4_t in_range = vcaltq_f32(a.v[k], vdupq_n_f32(2147483648.0f));
    return vbslq_s32(in_range, vcvtnq_s32_f32(a.v[k]), vdupq_n_s32(INT32_MIN));
  });
}

// IEEE binary16 (round to nearest even, as FPCR has it on Linux) in the low 16 bits of each lane.
inline VI half_bits(VF a) {
  return map_i([&](int k) { return vreinterpretq_s32_u32(vmovl_u16(vreinterpret_u16_f16(vcvt_f16_f32(a.v[k])))); });
}

inline void vi_store(std::int32_t* p, VI v) {
  for (int k = 0; k < 4; ++k) vst1q_s32(p + 4 * k, v.v[k]);
}

// The sum of the 16 lanes (integers: exact in any order).
inline int hsum(VI a) { return vaddvq_s32(vaddq_s32(vaddq_s32(a.v[0], a.v[1]), vaddq_s32(a.v[2], a.v[3]))); }

// The low byte of each lane.
inline VB low_bytes(VI a) {
  const uint16x8_t lo =
      vcombine_u16(vmovn_u32(vreinterpretq_u32_s32(a.v[0])), vmovn_u32(vreinterpretq_u32_s32(a.v[1])));
  const uint16x8_t hi =
      vcombine_u16(vmovn_u32(vreinterpretq_u32_s32(a.v[2])), vmovn_u32(vreinterpretq_u32_s32(a.v[3])));
  return vcombine_u8(vmovn_u16(lo), vmovn_u16(hi));
}

inline VB min_s8(VB a, VB b) { return vreinterpretq_u8_s8(vminq_s8(vreinterpretq_s8_u8(a), vreinterpretq_s8_u8(b))); }

// Bit k = bit 4 of byte k.
inline std::uint32_t bit4_mask(VB a) {
  static constexpr std::uint8_t kBit[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
  const VB bits = vandq_u8(vtstq_u8(a, vdupq_n_u8(0x10)), vld1q_u8(kBit));
  return vaddv_u8(vget_low_u8(bits)) | (static_cast<std::uint32_t>(vaddv_u8(vget_high_u8(bits))) << 8);
}

inline void store16(std::uint8_t* p, VB a) { vst1q_u8(p, a); }

inline VF vf_neg(VF a) {
  return map_f([&](int k) { return vnegq_f32(a.v[k]); });
}

inline VM operator|(VM a, VM b) {
  return map_m([&](int k) { return vorrq_u32(a.v[k], b.v[k]); });
}

inline bool any(VM a) { return vmaxvq_u32(vorrq_u32(vorrq_u32(a.v[0], a.v[1]), vorrq_u32(a.v[2], a.v[3]))) != 0; }

inline VI shl(VI a, int c) {
  return map_i([&](int k) { return vshlq_s32(a.v[k], vdupq_n_s32(c)); });
}

// Logical: the lanes shifted are never negative here, but keep it unsigned like the x86 paths.
inline VI shr(VI a, int c) {
  return map_i([&](int k) { return vreinterpretq_s32_u32(vshlq_u32(vreinterpretq_u32_s32(a.v[k]), vdupq_n_s32(-c))); });
}

// The low byte of each lane, 16 bytes to p.
inline void store_u8(std::uint8_t* p, VI v) { store16(p, low_bytes(v)); }
// The low 16 bits of each lane, little-endian, 32 bytes to p.
inline void store_low16(std::uint8_t* p, VI v) {
  vst1q_u16(reinterpret_cast<std::uint16_t*>(p),
            vcombine_u16(vmovn_u32(vreinterpretq_u32_s32(v.v[0])), vmovn_u32(vreinterpretq_u32_s32(v.v[1]))));
  vst1q_u16(reinterpret_cast<std::uint16_t*>(p + 16),
            vcombine_u16(vmovn_u32(vreinterpretq_u32_s32(v.v[2])), vmovn_u32(vreinterpretq_u32_s32(v.v[3]))));
}

inline VM ge(VF a, VF b) {
  return map_m([&](int k) { return vcgeq_f32(a.v[k], b.v[k]); });
}

// table[idx] for indices in 0..7, table 8 floats in memory: one tbl over its 32 bytes.
inline VF lookup8f(const float* table, VI idx) {
  const uint8x16x2_t t = vld1q_u8_x2(reinterpret_cast<const std::uint8_t*>(table));
  return map_f([&](int k) {
    const uint32x4_t bytes = vmlaq_n_u32(vdupq_n_u32(0x03020100u), vreinterpretq_u32_s32(idx.v[k]), 0x04040404u);
    return vreinterpretq_f32_u8(vqtbl2q_u8(t, vreinterpretq_u8_u32(bytes)));
  });
}

// table[idx] for 16 indices in 0..15, table 16 floats in memory: one tbl over its 64 bytes, the
// byte indices 4 idx + 0..3.
inline VF lookup16f(const float* table, VI idx) {
  const uint8x16x4_t t = vld1q_u8_x4(reinterpret_cast<const std::uint8_t*>(table));
  return map_f([&](int k) {
    const uint32x4_t bytes = vmlaq_n_u32(vdupq_n_u32(0x03020100u), vreinterpretq_u32_s32(idx.v[k]), 0x04040404u);
    return vreinterpretq_f32_u8(vqtbl4q_u8(t, vreinterpretq_u8_u32(bytes)));
  });
}

// t[i * stride + k] = rows[k][i] for i, k < 16: sixteen rows of 16 floats (or 4-byte integers)
// transposed as sixteen 4x4 blocks in registers (trn1/trn2 of words, then of doublewords).
inline void transpose16(const void* const* rows, void* t, int stride) {
  for (int bk = 0; bk < 16; bk += 4) {
    for (int bi = 0; bi < 16; bi += 4) {
      float32x4_t r[4];
      for (int k = 0; k < 4; ++k) r[k] = vld1q_f32(static_cast<const float*>(rows[bk + k]) + bi);
      const float32x4_t a0 = vtrn1q_f32(r[0], r[1]), a1 = vtrn2q_f32(r[0], r[1]);
      const float32x4_t a2 = vtrn1q_f32(r[2], r[3]), a3 = vtrn2q_f32(r[2], r[3]);
      auto d = [](float32x4_t v) { return vreinterpretq_f64_f32(v); };
      auto f = [](float64x2_t v) { return vreinterpretq_f32_f64(v); };
      float* out = static_cast<float*>(t) + bi * stride + bk;
      vst1q_f32(out, f(vtrn1q_f64(d(a0), d(a2))));
      vst1q_f32(out + stride, f(vtrn1q_f64(d(a1), d(a3))));
      vst1q_f32(out + 2 * stride, f(vtrn2q_f64(d(a0), d(a2))));
      vst1q_f32(out + 3 * stride, f(vtrn2q_f64(d(a1), d(a3))));
    }
  }
}

}  // namespace
}  // namespace onnxq::simd::neon
