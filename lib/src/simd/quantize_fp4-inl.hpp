// The FP4 quantizers (mxfp4, nvfp4), written once over the 16-lane vector layer and compiled per
// ISA: include a vec_<isa>.hpp first (see simd/<isa>/quantize_fp4.cpp). They write the bytes of
// the scalar reference (quantize/fp4.cpp) on every input.
//
// Lanes are values of one (sub-)block. The scale comes from the integer maximum of the |x| bit
// patterns (exact in any order) in scalar code. A block whose maximum is inf or NaN writes nothing
// and makes the kernel refuse its rows (QuantizeKernel::checks_finite); mxfp4 blocks whose maximum
// lies where glibc's log2f rounds up to the next integer go to the reference kernel. Each lane
// then searches the E2M1 codes exactly as the reference: error |kvalue * s - |x|| (kvalue * s
// exact, computed once per block), the first code of strictly least error.
#ifndef ONNXQ_SIMD_NS
#error "include simd/vec_<isa>.hpp first"
#endif

#define ONNXQ_LBQ_OPS_ONLY
#include "simd/quantize_lowbit-inl.hpp"
#undef ONNXQ_LBQ_OPS_ONLY

#include <algorithm>

namespace onnxq::simd::ONNXQ_SIMD_NS {
namespace {
namespace fp4q {

using namespace lbq;

constexpr float kE2m1[8] = {0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 6.0f, 8.0f, 12.0f};

// Codes (0..15) of 16 values for the half-scale s; kv[i] = kE2m1[i] * s.
inline VI codes(VF x, const VF* kv) {
  const VF a = fabs_(x);
  VF best_err = a;  // code 0: |0 * s - a|
  VI best = vi_set1(0);
  for (int i = 1; i < 8; ++i) {
    const VF err = fabs_(kv[i] - a);
    const M better = flt(err, best_err);  // errors are never NaN (finite blocks only)
    best_err = fsel(better, err, best_err);
    best = isel(better, vi_set1(i), best);
  }
  // A code above 0 has err < a, so a > 0 and x < 0 is x's sign bit: add 8 then.
  return best | (srli<28>(bits(x)) & (best + vi_set1(7)) & vi_set1(8));
}

// The same codes by thresholds: code = how many midpoints m_j s (m = 0.5, 1.5, 2.5, 3.5, 5, 7, 10)
// lie strictly below |x| (ties go to the lower, first, code). Exact where every m_j s and
// kvalue * s is exact and |x| <= 24 s: then the two errors around |x| are exact differences
// (Sterbenz), the error falls then rises over the codes (rounding is monotonic) and the others are
// at least s beyond their neighbour's, so the reference's first least error is the nearest code.
constexpr float kMid[7] = {0.5f, 1.5f, 2.5f, 3.5f, 5.0f, 7.0f, 10.0f};
inline VI codes_by_midpoints(VF x, const VF* mid) {
  const VF a = fabs_(x);
  VI c = vi_set1(0);
  for (int j = 0; j < 7; ++j) c = add_one_where(flt(mid[j], a), c);
  return c | (srli<28>(bits(x)) & (c + vi_set1(7)) & vi_set1(8));
}
inline void midpoints(float s, VF* mid) {
  for (int j = 0; j < 7; ++j) mid[j] = vf_set1(kMid[j] * s);
}

inline void scaled(float s, VF* kv) {
  for (int i = 1; i < 8; ++i) kv[i] = vf_set1(kE2m1[i] * s);
}

// ggml_e8m0_to_fp32_half: 2^(e - 128), e = 0 and 1 being subnormals.
inline float e8m0_half(std::uint8_t e) {
  if (e < 2) return std::bit_cast<float>(0x00200000u << e);
  return std::bit_cast<float>(static_cast<std::uint32_t>(e - 1) << 23);
}

// mxfp4: e = floor(log2f(amax)) + 125 as a uint8. For a finite normal amax more than 88 floats
// below the next power of two, glibc's log2f does not round up (see quantize/fp4.cpp), so the
// floor is the exponent field's; other blocks go to the reference.
inline bool mxfp4_block(const float* x, std::uint8_t* b) {
  // Also the exponent field >= 4, so that e >= 2 and s = 2^(floor(log2 amax) - 3) >= 2^-126: the
  // midpoints are then exact and |x| < 16 s (codes_by_midpoints).
  const std::int32_t ab = amax_bits<32>(x);
  if (non_finite_amax(ab)) return true;
  if (ab < 0x02000000 || (ab & 0x7FFFFF) >= 0x800000 - 88) {
    quantize::quantize_mxfp4(x, b, 1, 32, nullptr);
    return false;
  }
  const std::uint8_t e = static_cast<std::uint8_t>((ab >> 23) - 127 + 125);
  b[0] = e;
  VF mid[7];
  midpoints(e8m0_half(e), mid);
  st8(b + 1, codes_by_midpoints(ld(x), mid) | slli<4>(codes_by_midpoints(ld(x + 16), mid)));
  return false;
}

// ggml_fp32_to_ue4m3 for x = amax / 6 >= 0, finite: saturating at 448 (0x7E), mantissa rounded
// half up, subnormals (code = man, value man * 2^-9) from (int)(x * 512 + 0.5).
inline std::uint8_t to_ue4m3(float x) {
  if (!(x > 0.0f)) return 0;
  if (x > 448.0f) x = 448.0f;
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  int exp = static_cast<int>(u >> 23) - 120;
  if (exp <= 0) {
    const int man = static_cast<int>(x * 512.0f + 0.5f);
    return static_cast<std::uint8_t>(man < 1 ? 0 : (man > 7 ? 7 : man));
  }
  if (exp >= 15) return 0x7E;
  int man = static_cast<int>((u >> 20) & 7) + static_cast<int>((u >> 19) & 1);
  if (man > 7) {
    man = 0;
    if (++exp >= 15) return 0x7E;
  }
  return static_cast<std::uint8_t>((exp << 3) | man);
}

// ggml_ue4m3_to_fp32, halved (exact). Codes here are at most 0x7E.
inline float ue4m3_half(std::uint8_t c) {
  if (c == 0) return 0.0f;
  const int exp = c >> 3, man = c & 7;
  if (exp == 0) return static_cast<float>(man) * 0x1p-10f;
  return static_cast<float>(8 + man) * std::bit_cast<float>(static_cast<std::uint32_t>(exp - 11 + 127) << 23);
}

// nvfp4: sub-block sb of 16 has code ue4m3(amax / 6); its elements j, j + 8 share byte 4 + 8sb + j.
inline bool nvfp4_block(const float* x, std::uint8_t* b) {
  std::int32_t ab[4];
  for (int sb = 0; sb < 4; ++sb) ab[sb] = amax_bits<16>(x + 16 * sb);
  if (non_finite_amax(std::max(std::max(ab[0], ab[1]), std::max(ab[2], ab[3])))) return true;
  for (int sb = 0; sb < 4; ++sb) {
    const std::uint8_t code = to_ue4m3(std::bit_cast<float>(ab[sb]) / 6.0f);
    b[sb] = code;
    const float s = ue4m3_half(code);
    alignas(16) std::uint8_t c[16];
    if (s > 0.0f && std::bit_cast<float>(ab[sb]) <= 24.0f * s) {  // s = (8 + m) 2^n or m 2^-10: midpoints exact
      VF mid[7];
      midpoints(s, mid);
      st8(c, codes_by_midpoints(ld(x + 16 * sb), mid));
    } else {  // s = 0, or the UE4M3 code saturated at 448
      VF kv[8];
      scaled(s, kv);
      st8(c, codes(ld(x + 16 * sb), kv));
    }
    std::uint64_t lo, hi;  // codes < 16: shifting the high eight up a nibble stays within bytes
    std::memcpy(&lo, c, 8);
    std::memcpy(&hi, c + 8, 8);
    const std::uint64_t packed = lo | (hi << 4);
    std::memcpy(b + 4 + 8 * sb, &packed, 8);
  }
  return false;
}

}  // namespace fp4q
}  // namespace

std::span<const QuantizeKernel> fp4_quantizers() {
  using formats::FormatId;
  static constexpr QuantizeKernel kTable[] = {
      {formats::row(FormatId::mxfp4).index, &fp4q::each_block<fp4q::mxfp4_block, 32, 17>, true},
      {formats::row(FormatId::nvfp4).index, &fp4q::each_block<fp4q::nvfp4_block, 64, 36>, true},
  };
  return kTable;
}

}  // namespace onnxq::simd::ONNXQ_SIMD_NS
