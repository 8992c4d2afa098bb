// SIMD kernels for the FP4 formats mxfp4, nvfp4 (spec §9).
// Include after simd/kernels_common-inl.hpp.
#include "formats/codebooks.hpp"
#include "simd/float_grids.hpp"

namespace onnxq::simd::ONNXQ_SIMD_NS {
namespace {

inline VF fp4_values(VB codes) { return to_f(vi_i8(lookup16(formats::kKvaluesFp4.data(), codes))); }

// y = float(kvalues_fp4[c]) * S, S = 2^(e-128) (spec §3.3; e = 0, 1 subnormal; 255 not NaN).
struct Mxfp4 : KernelFor<FormatId::mxfp4> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const std::uint32_t e = b[offsetof(Layout, e)];
    const std::uint32_t bits = e == 0 ? 0x00200000u : e == 1 ? 0x00400000u : (e - 1) << 23;
    const VF S = vf_set1(f32_of_bits(bits));
    const VB q = load16(b + offsetof(Layout, qs));
    out.put(i, fp4_values(nib_lo(q)) * S);
    out.put(i + 16, fp4_values(nib_hi(q)) * S);
  }
};

struct Nvfp4 : KernelFor<FormatId::nvfp4> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const float* half_scale = ue4m3_half_scales();  // T(x), spec §3.4: bit 7 ignored, 0x00/0x7F -> 0, 0xFF -> 240
    const std::uint8_t *scales = b + offsetof(Layout, d), *qs = b + offsetof(Layout, qs);
    for (int s = 0; s < 4; ++s) {
      const VF T = vf_set1(half_scale[scales[s]]);
      const VB x = load8(qs + 8 * s);
      out.put(i + 16 * s, fp4_values(join_lo8(nib_lo(x), nib_hi(x))) * T);  // low nibbles first
    }
  }
};

}  // namespace

std::span<const FusedDecoders> fp4_decoders() {
  static constexpr FusedDecoders kRows[] = {row<Mxfp4>(), row<Nvfp4>()};
  return kRows;
}

}  // namespace onnxq::simd::ONNXQ_SIMD_NS
