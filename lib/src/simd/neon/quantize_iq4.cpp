// The neon build of the iq4 quantizers (compiled with this ISA's flags and -ffp-contract=off).
// In this order: the ISA vector layer, the lane operations the family needs beyond it, the family.
#include "simd/vec_neon.hpp"

namespace onnxq::simd::neon {
namespace {

// A lane mask: all-ones lanes in four q registers. Comparisons are ordered (false on NaN, as C's
// <, >, >=) except ne, which is C's != (true on NaN).
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
inline VF vf_neg(VF a) {
  return map_f([&](int k) { return vnegq_f32(a.v[k]); });
}
inline VM lt(VF a, VF b) {
  return map_m([&](int k) { return vcltq_f32(a.v[k], b.v[k]); });
}
inline VM gt(VF a, VF b) {
  return map_m([&](int k) { return vcgtq_f32(a.v[k], b.v[k]); });
}
inline VM ge(VF a, VF b) {
  return map_m([&](int k) { return vcgeq_f32(a.v[k], b.v[k]); });
}
inline VM ne(VF a, VF b) {
  return map_m([&](int k) { return vmvnq_u32(vceqq_f32(a.v[k], b.v[k])); });
}
inline VM operator&(VM a, VM b) {
  return map_m([&](int k) { return vandq_u32(a.v[k], b.v[k]); });
}
inline VF sel(VM m, VF a, VF b) {
  return map_f([&](int k) { return vbslq_f32(m.v[k], a.v[k], b.v[k]); });
}
inline VI sel(VM m, VI a, VI b) {
  return map_i([&](int k) { return vbslq_s32(m.v[k], a.v[k], b.v[k]); });
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
inline void vi_store(std::int32_t* p, VI v) {
  for (int k = 0; k < 4; ++k) vst1q_s32(p + 4 * k, v.v[k]);
}
// The low byte of each lane.
inline VB low_bytes(VI a) {
  const uint16x8_t lo =
      vcombine_u16(vmovn_u32(vreinterpretq_u32_s32(a.v[0])), vmovn_u32(vreinterpretq_u32_s32(a.v[1])));
  const uint16x8_t hi =
      vcombine_u16(vmovn_u32(vreinterpretq_u32_s32(a.v[2])), vmovn_u32(vreinterpretq_u32_s32(a.v[3])));
  return vcombine_u8(vmovn_u16(lo), vmovn_u16(hi));
}
inline void store16(std::uint8_t* p, VB a) { vst1q_u8(p, a); }
// IEEE binary16 (round to nearest even, as FPCR has it on Linux) in the low 16 bits of each lane.
inline VI half_bits(VF a) {
  return map_i([&](int k) { return vreinterpretq_s32_u32(vmovl_u16(vreinterpret_u16_f16(vcvt_f16_f32(a.v[k])))); });
}
inline VI as_i(VF a) {
  return map_i([&](int k) { return vreinterpretq_s32_f32(a.v[k]); });
}
inline VI operator|(VI a, VI b) {
  return map_i([&](int k) { return vorrq_s32(a.v[k], b.v[k]); });
}

}  // namespace
}  // namespace onnxq::simd::neon

#include "simd/quantize_iq4-inl.hpp"
