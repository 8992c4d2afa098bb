// The neon build of the kquant quantizers (compiled with this ISA's flags and -ffp-contract=off).
// In this order: the ISA vector layer, the lane operations the searches need beyond it, the family.
#include "simd/vec_neon.hpp"

namespace onnxq::simd::neon {
namespace {

// Vectors per search group (VF is already four q-register chains).
constexpr int kSearchVectors = 1;

// A lane mask: all-ones lanes in four q registers. Comparisons are ordered (false on NaN, as C's
// <, >, <=, ==) except ne, which is C's != (true on NaN).
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
inline void vi_store(std::int32_t* p, VI v) {
  for (int k = 0; k < 4; ++k) vst1q_s32(p + 4 * k, v.v[k]);
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
inline VM le(VF a, VF b) {
  return map_m([&](int k) { return vcleq_f32(a.v[k], b.v[k]); });
}
inline VM eq(VF a, VF b) {
  return map_m([&](int k) { return vceqq_f32(a.v[k], b.v[k]); });
}
inline VM ne(VF a, VF b) {
  return map_m([&](int k) { return vmvnq_u32(vceqq_f32(a.v[k], b.v[k])); });
}
inline VM operator&(VM a, VM b) {
  return map_m([&](int k) { return vandq_u32(a.v[k], b.v[k]); });
}
inline VM operator|(VM a, VM b) {
  return map_m([&](int k) { return vorrq_u32(a.v[k], b.v[k]); });
}
inline bool any(VM a) { return vmaxvq_u32(vorrq_u32(vorrq_u32(a.v[0], a.v[1]), vorrq_u32(a.v[2], a.v[3]))) != 0; }
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
inline VI shl(VI a, int c) {
  return map_i([&](int k) { return vshlq_s32(a.v[k], vdupq_n_s32(c)); });
}
// Logical: the lanes shifted are never negative here, but keep it unsigned like the x86 paths.
inline VI shr(VI a, int c) {
  return map_i([&](int k) { return vreinterpretq_s32_u32(vshlq_u32(vreinterpretq_u32_s32(a.v[k]), vdupq_n_s32(-c))); });
}
// The sum of the 16 lanes (integers: exact in any order).
inline std::int32_t vi_hsum(VI v) {
  return vaddvq_s32(vaddq_s32(vaddq_s32(v.v[0], v.v[1]), vaddq_s32(v.v[2], v.v[3])));
}
// The low byte of each lane, 16 bytes to p.
inline void store_u8(std::uint8_t* p, VI v) {
  const uint16x8_t lo =
      vcombine_u16(vmovn_u32(vreinterpretq_u32_s32(v.v[0])), vmovn_u32(vreinterpretq_u32_s32(v.v[1])));
  const uint16x8_t hi =
      vcombine_u16(vmovn_u32(vreinterpretq_u32_s32(v.v[2])), vmovn_u32(vreinterpretq_u32_s32(v.v[3])));
  vst1q_u8(p, vcombine_u8(vmovn_u16(lo), vmovn_u16(hi)));
}

}  // namespace
}  // namespace onnxq::simd::neon

#include "simd/quantize_kquant-inl.hpp"
