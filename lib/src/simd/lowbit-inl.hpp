// SIMD kernels for the 1- and 2-bit formats q1_0, q2_0 (spec §10).
// Include after simd/kernels_common-inl.hpp.

namespace onnxq::simd::ONNXQ_SIMD_NS {
namespace {

// y = bit ? d : -d
struct Q1_0 : KernelFor<FormatId::q1_0> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const float d = h2f(b + offsetof(Layout, d));
    const std::uint8_t* qs = b + offsetof(Layout, qs);
    const VF pos = vf_set1(d), neg = vf_set1(-d);
    for (int k = 0; k < 8; ++k) out.put(i + 16 * k, select_bits(rd16(qs + 2 * k), pos, neg));
  }
};

// y = float(q - 1) * d, four consecutive elements per byte.
struct Q2_0 : KernelFor<FormatId::q2_0> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const VF d = vf_set1(h2f(b + offsetof(Layout, d)));
    const std::uint8_t* qs = b + offsetof(Layout, qs);
    const VI shifts = slli<1>(vi_iota(0));
    for (int k = 0; k < 4; ++k) {
      const VI q = srlv(vi_set1(static_cast<std::int32_t>(rd32(qs + 4 * k))), shifts) & vi_set1(3);
      out.put(i + 16 * k, to_f(q - vi_set1(1)) * d);
    }
  }
};

}  // namespace

std::span<const FusedDecoders> lowbit_decoders() {
  static constexpr FusedDecoders kRows[] = {row<Q1_0>(), row<Q2_0>()};
  return kRows;
}

}  // namespace onnxq::simd::ONNXQ_SIMD_NS
