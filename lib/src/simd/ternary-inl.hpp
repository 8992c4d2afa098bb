// SIMD kernels for the ternary formats tq1_0, tq2_0 (spec §8).
// Include after simd/kernels_common-inl.hpp.

namespace onnxq::simd::ONNXQ_SIMD_NS {
namespace {

// trit = (((byte * 3^n) mod 256) * 3) >> 8, per lane, with 3^n given per lane (spec §8.1).
inline VI trits(VI bytes, VI pow3) {
  const VI p = mullo(bytes, pow3) & vi_set1(255);
  return srli<8>(slli<1>(p) + p);
}

// y = float(trit - 1) * d
struct Tq1_0 : KernelFor<FormatId::tq1_0> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const VF d = vf_set1(h2f(b + offsetof(Layout, d)));
    static constexpr std::int32_t kPow3[5] = {1, 3, 9, 27, 81};
    const std::uint8_t* qs = b + offsetof(Layout, qs);
    const VI a0 = vi_u8(load16(qs)), a1 = vi_u8(load16(qs + 16)), c = vi_u8(load16(qs + 32));
    for (int n = 0; n < 5; ++n) {  // elements 0..159: byte j % 32, digit j / 32
      const VI pw = vi_set1(kPow3[n]);
      out.put(i + 32 * n, to_f(trits(a0, pw) - vi_set1(1)) * d);
      out.put(i + 32 * n + 16, to_f(trits(a1, pw) - vi_set1(1)) * d);
    }
    for (int n = 0; n < 5; ++n)  // elements 160..239: byte 32 + t % 16, digit t / 16
      out.put(i + 160 + 16 * n, to_f(trits(c, vi_set1(kPow3[n])) - vi_set1(1)) * d);
    // Elements 240..255: qh byte t % 4, digit t / 4.
    alignas(64) static constexpr std::int32_t kLanePow3[16] = {1, 1, 1, 1, 3, 3, 3, 3, 9, 9, 9, 9, 27, 27, 27, 27};
    const VI h = vi_u8(bytes_u32x4(rd32(b + offsetof(Layout, qh))));
    out.put(i + 240, to_f(trits(h, vi_load(kLanePow3)) - vi_set1(1)) * d);
  }
};

// y = float(q - 1) * d with q-2_k-style bit planes.
struct Tq2_0 : KernelFor<FormatId::tq2_0> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const VF d = vf_set1(h2f(b + offsetof(Layout, d)));
    const std::uint8_t* qs = b + offsetof(Layout, qs);
    for (int h = 0; h < 2; ++h)
      for (int s = 0; s < 2; ++s) {
        const VB q = load16(qs + 32 * h + 16 * s);
        for (int p = 0; p < 4; ++p)
          out.put(i + 128 * h + 32 * p + 16 * s, to_f(vi_u8(bits_of(q, 2 * p, 3)) - vi_set1(1)) * d);
      }
  }
};

}  // namespace

std::span<const FusedDecoders> ternary_decoders() {
  static constexpr FusedDecoders kRows[] = {row<Tq1_0>(), row<Tq2_0>()};
  return kRows;
}

}  // namespace onnxq::simd::ONNXQ_SIMD_NS
