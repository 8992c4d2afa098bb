// SIMD kernels for the 32-element formats q4_0, q4_1, q5_0, q5_1, q8_0, q8_1 (spec §5).
// Include after simd/kernels_common-inl.hpp.
namespace onnxq::simd::ONNXQ_SIMD_NS {
namespace {

// y = float(q - 8) * d
struct Q4_0 : KernelFor<FormatId::q4_0> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const VF d = vf_set1(h2f(b + offsetof(Layout, d)));
    const VB q = load16(b + offsetof(Layout, qs));
    const VB eight = set1_bytes(8);
    out.put(i, to_f(vi_i8(sub_bytes(nib_lo(q), eight))) * d);
    out.put(i + 16, to_f(vi_i8(sub_bytes(nib_hi(q), eight))) * d);
  }
};

// y = (float(q) * d) + m: the product is exact, the sum rounds once.
struct Q4_1 : KernelFor<FormatId::q4_1> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const VF d = vf_set1(h2f(b + offsetof(Layout, d))), m = vf_set1(h2f(b + offsetof(Layout, m)));
    const VB q = load16(b + offsetof(Layout, qs));
    out.put(i, (to_f(vi_u8(nib_lo(q))) * d) + m);
    out.put(i + 16, (to_f(vi_u8(nib_hi(q))) * d) + m);
  }
};

// Bit 4 of element j is bit j of qh: lo | 16 * ((qh >> j) & 1) for the 16 elements of `lo`.
inline VB with_fifth_bit(VB lo, std::uint32_t qh16) { return or_bytes(lo, bytes_where(qh16, set1_bytes(16))); }

struct Q5_0 : KernelFor<FormatId::q5_0> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const VF d = vf_set1(h2f(b + offsetof(Layout, d)));
    const std::uint32_t qh = rd32(b + offsetof(Layout, qh));
    const VB q = load16(b + offsetof(Layout, qs));
    const VB sixteen = set1_bytes(16);
    out.put(i, to_f(vi_i8(sub_bytes(with_fifth_bit(nib_lo(q), qh & 0xFFFF), sixteen))) * d);
    out.put(i + 16, to_f(vi_i8(sub_bytes(with_fifth_bit(nib_hi(q), qh >> 16), sixteen))) * d);
  }
};

struct Q5_1 : KernelFor<FormatId::q5_1> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const VF d = vf_set1(h2f(b + offsetof(Layout, d))), m = vf_set1(h2f(b + offsetof(Layout, m)));
    const std::uint32_t qh = rd32(b + offsetof(Layout, qh));
    const VB q = load16(b + offsetof(Layout, qs));
    out.put(i, (to_f(vi_u8(with_fifth_bit(nib_lo(q), qh & 0xFFFF))) * d) + m);
    out.put(i + 16, (to_f(vi_u8(with_fifth_bit(nib_hi(q), qh >> 16))) * d) + m);
  }
};

// y = float(i8) * d; q8_1 differs only by the unused `s` field before qs.
template <FormatId Id>
struct Q8 : KernelFor<Id> {
  using L = typename KernelFor<Id>::Layout;
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const VF d = vf_set1(h2f(b + offsetof(L, d)));
    const std::uint8_t* qs = b + offsetof(L, qs);
    out.put(i, to_f(vi_i8(load16(qs))) * d);
    out.put(i + 16, to_f(vi_i8(load16(qs + 16))) * d);
  }
};
using Q8_0 = Q8<FormatId::q8_0>;
using Q8_1 = Q8<FormatId::q8_1>;

}  // namespace

std::span<const FusedDecoders> legacy_decoders() {
  static constexpr FusedDecoders kRows[] = {row<Q4_0>(), row<Q4_1>(), row<Q5_0>(),
                                            row<Q5_1>(), row<Q8_0>(), row<Q8_1>()};
  return kRows;
}

}  // namespace onnxq::simd::ONNXQ_SIMD_NS
