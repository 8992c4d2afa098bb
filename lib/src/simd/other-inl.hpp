// SIMD kernels for the ternary (tq1_0, tq2_0, spec §8), FP4 (mxfp4, nvfp4, §9) and 1-/2-bit
// (q1_0, q2_0, §10) formats. Include after simd/kernels_common-inl.hpp.
#include "dequant/codebooks.hpp"
#include "simd/float_grids.hpp"

namespace onnxq::simd::ONNXQ_SIMD_NS {
namespace {

// trit = (((byte * 3^n) mod 256) * 3) >> 8, per lane, with 3^n given per lane (spec §8.1).
inline VI trits(VI bytes, VI pow3) {
  const VI p = mullo(bytes, pow3) & vi_set1(255);
  return srli<8>(slli<1>(p) + p);
}

// y = float(trit - 1) * d
struct Tq1_0 {
  static constexpr std::uint32_t kType = 34, kElements = 256, kBytes = 54;
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const VF d = vf_set1(h2f(b + 52));
    static constexpr std::int32_t kPow3[5] = {1, 3, 9, 27, 81};
    const VI a0 = vi_u8(load16(b)), a1 = vi_u8(load16(b + 16)), c = vi_u8(load16(b + 32));
    for (int n = 0; n < 5; ++n) {  // elements 0..159: byte j % 32, digit j / 32
      const VI pw = vi_set1(kPow3[n]);
      out.put(i + 32 * n, to_f(trits(a0, pw) - vi_set1(1)) * d);
      out.put(i + 32 * n + 16, to_f(trits(a1, pw) - vi_set1(1)) * d);
    }
    for (int n = 0; n < 5; ++n)  // elements 160..239: byte 32 + t % 16, digit t / 16
      out.put(i + 160 + 16 * n, to_f(trits(c, vi_set1(kPow3[n])) - vi_set1(1)) * d);
    // Elements 240..255: byte 48 + t % 4, digit t / 4.
    alignas(64) static constexpr std::int32_t kLanePow3[16] = {1, 1, 1, 1, 3, 3, 3, 3, 9, 9, 9, 9, 27, 27, 27, 27};
    const VI h = vi_u8(_mm_set1_epi32(static_cast<int>(rd32(b + 48))));
    out.put(i + 240, to_f(trits(h, vi_load(kLanePow3)) - vi_set1(1)) * d);
  }
};

// y = float(q - 1) * d with q-2_k-style bit planes.
struct Tq2_0 {
  static constexpr std::uint32_t kType = 35, kElements = 256, kBytes = 66;
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const VF d = vf_set1(h2f(b + 64));
    for (int h = 0; h < 2; ++h)
      for (int s = 0; s < 2; ++s) {
        const __m128i q = load16(b + 32 * h + 16 * s);
        for (int p = 0; p < 4; ++p)
          out.put(i + 128 * h + 32 * p + 16 * s, to_f(vi_u8(bits_of(q, 2 * p, 3)) - vi_set1(1)) * d);
      }
  }
};

inline VF fp4_values(__m128i codes) {
  const __m128i table = _mm_loadu_si128(reinterpret_cast<const __m128i*>(dequant::kKvaluesFp4.data()));
  return to_f(vi_i8(_mm_shuffle_epi8(table, codes)));
}

// y = float(kvalues_fp4[c]) * S, S = 2^(e-128) (spec §3.3; e = 0, 1 subnormal; 255 not NaN).
struct Mxfp4 {
  static constexpr std::uint32_t kType = 39, kElements = 32, kBytes = 17;
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const std::uint32_t e = b[0];
    const std::uint32_t bits = e == 0 ? 0x00200000u : e == 1 ? 0x00400000u : (e - 1) << 23;
    const VF S = vf_set1(f32_of_bits(bits));
    const __m128i q = load16(b + 1);
    out.put(i, fp4_values(nib_lo(q)) * S);
    out.put(i + 16, fp4_values(nib_hi(q)) * S);
  }
};

struct Nvfp4 {
  static constexpr std::uint32_t kType = 40, kElements = 64, kBytes = 36;
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const float* half_scale = ue4m3_half_scales();  // T(x), spec §3.4: bit 7 ignored, 0x00/0x7F -> 0, 0xFF -> 240
    for (int s = 0; s < 4; ++s) {
      const VF T = vf_set1(half_scale[b[s]]);
      const __m128i x = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(b + 4 + 8 * s));
      out.put(i + 16 * s, fp4_values(_mm_unpacklo_epi64(nib_lo(x), nib_hi(x))) * T);  // low nibbles first
    }
  }
};

// y = bit ? d : -d
struct Q1_0 {
  static constexpr std::uint32_t kType = 41, kElements = 128, kBytes = 18;
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const float d = h2f(b);
    const VF pos = vf_set1(d), neg = vf_set1(-d);
    for (int k = 0; k < 8; ++k) out.put(i + 16 * k, select_bits(rd16(b + 2 + 2 * k), pos, neg));
  }
};

// y = float(q - 1) * d, four consecutive elements per byte.
struct Q2_0 {
  static constexpr std::uint32_t kType = 42, kElements = 64, kBytes = 18;
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const VF d = vf_set1(h2f(b));
    const VI shifts = slli<1>(vi_iota(0));
    for (int k = 0; k < 4; ++k) {
      const VI q = srlv(vi_set1(static_cast<std::int32_t>(rd32(b + 2 + 4 * k))), shifts) & vi_set1(3);
      out.put(i + 16 * k, to_f(q - vi_set1(1)) * d);
    }
  }
};

}  // namespace

const FusedDecoders* other_decoders() {
  static constexpr FusedDecoders kRows[] = {row<Tq1_0>(), row<Tq2_0>(), row<Mxfp4>(), row<Nvfp4>(),
                                            row<Q1_0>(),  row<Q2_0>(),  kEndOfList};
  return kRows;
}

}  // namespace onnxq::simd::ONNXQ_SIMD_NS
