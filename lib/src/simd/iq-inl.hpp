// SIMD kernels for the IQ formats (spec §7). Grid entries are float32 rows looked up per
// 8 (or 4) elements, 16 at a time; on AVX-512 the five grid formats instead permute a
// 16-lane table of db * magnitude (iq_codes-inl.hpp). Signs flip after the magnitude product
// (an xor with a sign-mask row, or a mask register), which is exactly the spec's "* -1.0"
// for every non-NaN value (NaN patterns are unspecified, spec §2.5). Include after
// kernels_common-inl.hpp.
#include "formats/codebooks.hpp"
#include "simd/float_grids.hpp"

namespace onnxq::simd::ONNXQ_SIMD_NS {
namespace {

using formats::kIq1sGrid;
using formats::kKvaluesIq4nl;

// The magnitudes of two 8-element grid entries (float32 rows of float_grids()).
inline VF grid_pair(const float* grid, unsigned i0, unsigned i1) { return vf_rows8(grid + 8 * i0, grid + 8 * i1); }
// The magnitudes of four 4-element grid entries.
inline VF grid_quad(const float* grid, unsigned i0, unsigned i1, unsigned i2, unsigned i3) {
  return vf_rows4(grid + 4 * i0, grid + 4 * i1, grid + 4 * i2, grid + 4 * i3);
}
// db = (d * (0.5 + s)) * f, three float32 operations in this order.
inline float iq_scale(float d, std::uint32_t s, float f) { return (d * (0.5f + static_cast<float>(s))) * f; }

// Signs from the two full sign bytes at p (bit k of the 16 bits negates element k).
inline VF flip_bytes(VF x, const float* rows, const std::uint8_t* p) {
  if constexpr (kMaskRegisters) {
    return negate_where(x, rd16(p));
  } else {
    return xor_rows8(x, rows + 8 * p[0], rows + 8 * p[1]);
  }
}

// Signs from two 7-bit ksigns codes: with mask registers the prepared sign bytes (two, at
// prepared), else the codes' sign-mask rows (no parity work at all).
inline VF flip_codes(VF x, const FloatGrids& g, const std::uint8_t* prepared, unsigned c0, unsigned c1) {
  if constexpr (kMaskRegisters)
    return negate_where(x, rd16(prepared));
  else
    return xor_rows8(x, g.sign_codes + 8 * c0, g.sign_codes + 8 * c1);
}

// The float grids and the grid codes, set by iq_decoders(), which the dispatcher calls (on the
// first decode) before any of these kernels can run. Initialized at namespace scope, every command
// (even --version) built the tables at start-up; a function-local static instead made the kernels
// re-check its guard after every memory fence, and iq3_s ran 1.7x slower.
const FloatGrids* g_grids = nullptr;
const GridCodes* g_codes = nullptr;
inline const FloatGrids& grids() { return *g_grids; }

// The five grid formats (iq2_xxs, iq2_xs, iq2_s, iq3_xxs, iq3_s), whose whole-block preparation
// is written per ISA: Iq2_XXS, Iq2_XS, Iq2_S, Iq3_XXS, Iq3_S (and on AVX-512 the *_Codes kernels).
#if defined(__AVX2__)
#include "simd/iq_grids_x86-inl.hpp"
#elif defined(__ARM_NEON)
#include "simd/iq_grids_neon-inl.hpp"
#else
#error "no IQ grid kernels for this ISA"
#endif

// Two iq1s_grid entries as 16 signed values (-1, 0, +1).
inline VF iq1_pair(std::uint64_t g0, std::uint64_t g1) { return to_f(vi_i8(bytes_u64x2(g0, g1))); }

// y = dl * (g + delta): the delta shifts the grid value before scaling (spec §7.6).
struct Iq1_S : KernelFor<FormatId::iq1_s> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const float d = h2f(b + offsetof(Layout, d));
    const std::uint8_t *qs = b + offsetof(Layout, qs), *qh = b + offsetof(Layout, qh);
    for (int ib = 0; ib < 8; ++ib) {
      const std::uint32_t H = rd16(qh + 2 * ib);
      const VF dl = vf_set1(d * static_cast<float>(2 * ((H >> 12) & 7) + 1));
      const VF delta = vf_set1((H & 0x8000) ? -0.125f : 0.125f);
      for (int p = 0; p < 2; ++p) {
        const int l0 = 2 * p, l1 = 2 * p + 1;
        const std::uint64_t g0 = kIq1sGrid[qs[4 * ib + l0] + 256 * ((H >> (3 * l0)) & 7)];
        const std::uint64_t g1 = kIq1sGrid[qs[4 * ib + l1] + 256 * ((H >> (3 * l1)) & 7)];
        out.put(i + 32 * ib + 16 * p, dl * (iq1_pair(g0, g1) + delta));
      }
    }
  }
};

// iq1_m: delta per 8 elements, scale per 16, d assembled from four top nibbles.
struct Iq1_M : KernelFor<FormatId::iq1_m> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const std::uint8_t *qs = b + offsetof(Layout, qs), *qh = b + offsetof(Layout, qh);
    std::uint32_t w[4];
    for (int k = 0; k < 4; ++k) w[k] = rd16(b + offsetof(Layout, scales) + 2 * k);
    const float d = half_bits_to_f32((w[0] >> 12) | ((w[1] >> 12) << 4) | ((w[2] >> 12) << 8) | ((w[3] >> 12) << 12));
    for (int ib = 0; ib < 8; ++ib) {
      for (int p = 0; p < 2; ++p) {
        const std::uint32_t hbyte = qh[2 * ib + p];
        const std::uint32_t n0 = hbyte & 15, n1 = hbyte >> 4;
        const std::uint64_t g0 = kIq1sGrid[qs[4 * ib + 2 * p] + 256 * (n0 & 7)];
        const std::uint64_t g1 = kIq1sGrid[qs[4 * ib + 2 * p + 1] + 256 * (n1 & 7)];
        const VF delta = vf_set2((n0 & 8) ? -0.125f : 0.125f, (n1 & 8) ? -0.125f : 0.125f);
        const std::uint32_t s = (w[ib / 2] >> (6 * (ib % 2) + 3 * p)) & 7;
        const VF dl = vf_set1(d * static_cast<float>(2 * s + 1));
        out.put(i + 32 * ib + 16 * p, dl * (iq1_pair(g0, g1) + delta));
      }
    }
  }
};

// kvalues_iq4nl[c] for 16 codes at once.
inline VF iq4_values(VB codes) { return to_f(vi_i8(lookup16(kKvaluesIq4nl.data(), codes))); }

struct Iq4_NL : KernelFor<FormatId::iq4_nl> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const VF d = vf_set1(h2f(b + offsetof(Layout, d)));
    const VB q = load16(b + offsetof(Layout, qs));
    out.put(i, d * iq4_values(nib_lo(q)));
    out.put(i + 16, d * iq4_values(nib_hi(q)));
  }
};

struct Iq4_XS : KernelFor<FormatId::iq4_xs> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const float d = h2f(b + offsetof(Layout, d));
    const std::uint32_t sh = rd16(b + offsetof(Layout, scales_h));
    const std::uint8_t *sl = b + offsetof(Layout, scales_l), *qs = b + offsetof(Layout, qs);
    for (int ib = 0; ib < 8; ++ib) {
      const int lo = (ib % 2 == 0) ? (sl[ib / 2] & 15) : (sl[ib / 2] >> 4);
      const int ls = lo + 16 * static_cast<int>((sh >> (2 * ib)) & 3);
      const VF dl = vf_set1(d * static_cast<float>(ls - 32));
      const VB q = load16(qs + 16 * ib);
      out.put(i + 32 * ib, dl * iq4_values(nib_lo(q)));
      out.put(i + 32 * ib + 16, dl * iq4_values(nib_hi(q)));
    }
  }
};

}  // namespace

std::span<const FusedDecoders> iq_decoders() {
  g_grids = &float_grids();
  g_codes = &grid_codes();
#if defined(__AVX512BW__)
  using K2xxs = Iq2_XXS_Codes;
  using K3xxs = Iq3_XXS_Codes;
  using K3s = Iq3_S_Codes;
  using K2xs = Iq2_XS_Codes;
  using K2s = Iq2_S_Codes;
#else
  using K2xxs = Iq2_XXS;
  using K3xxs = Iq3_XXS;
  using K3s = Iq3_S;
  using K2xs = Iq2_XS;
  using K2s = Iq2_S;
#endif
  static constexpr FusedDecoders kRows[] = {row<K2xxs>(), row<K2xs>(),  row<K2s>(),    row<K3xxs>(), row<K3s>(),
                                            row<Iq1_S>(), row<Iq1_M>(), row<Iq4_NL>(), row<Iq4_XS>()};
  return kRows;
}

}  // namespace onnxq::simd::ONNXQ_SIMD_NS
