// SIMD kernels for the IQ formats (spec §7). Grid entries are float32 rows looked up per
// 8 (or 4) elements, 16 at a time; signs flip after the magnitude product (an xor with a
// sign-mask row, or a mask register), which is exactly the spec's "* -1.0" for every
// non-NaN value (NaN patterns are unspecified, spec §2.5). Include after kernels_common-inl.hpp.
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

// Signs from two 7-bit ksigns codes (8 elements each), as lane-mask rows: no table of
// ksigns bytes, no parity, no bit tests.
inline VF flip_codes(VF x, const float* rows, unsigned c0, unsigned c1) {
  return xor_rows8(x, rows + 8 * c0, rows + 8 * c1);
}
// Signs from the two full sign bytes at p (bit k of the 16 bits negates element k).
inline VF flip_bytes(VF x, const float* rows, const std::uint8_t* p) {
  if constexpr (kMaskRegisters) {
    return negate_where(x, rd16(p));
  } else {
    return xor_rows8(x, rows + 8 * p[0], rows + 8 * p[1]);
  }
}

struct Iq2_XXS : KernelFor<FormatId::iq2_xxs> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const float d = h2f(b + offsetof(Layout, d));
    const FloatGrids& g = float_grids();  // once per block: a call to another file
    const float* grid = g.iq2xxs;
    for (int ib = 0; ib < 8; ++ib) {
      const std::uint8_t* o = b + offsetof(Layout, qs) + 8 * ib;
      const std::uint32_t W = rd32(o + 4);
      const VF db = vf_set1(iq_scale(d, W >> 28, 0.25f));
      for (int p = 0; p < 2; ++p) {
        const VF mag = grid_pair(grid, o[2 * p], o[2 * p + 1]);
        out.put(i + 32 * ib + 16 * p,
                flip_codes(db * mag, g.sign_codes, (W >> (14 * p)) & 127, (W >> (14 * p + 7)) & 127));
      }
    }
  }
};

// The low nibble scales the first 16 elements of group ib, the high nibble the last 16.
struct Iq2_XS : KernelFor<FormatId::iq2_xs> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const float d = h2f(b + offsetof(Layout, d));
    const std::uint8_t *qs = b + offsetof(Layout, qs), *scales = b + offsetof(Layout, scales);
    const FloatGrids& g = float_grids();  // once per block: a call to another file
    const float* grid = g.iq2xs;
    for (int ib = 0; ib < 8; ++ib) {
      const std::uint8_t sc = scales[ib];
      for (int p = 0; p < 2; ++p) {
        const std::uint32_t v0 = rd16(qs + 2 * (4 * ib + 2 * p)), v1 = rd16(qs + 2 * (4 * ib + 2 * p + 1));
        const VF db = vf_set1(iq_scale(d, p == 0 ? (sc & 15u) : (sc >> 4u), 0.25f));
        const VF mag = grid_pair(grid, v0 & 511, v1 & 511);
        out.put(i + 32 * ib + 16 * p, flip_codes(db * mag, g.sign_codes, v0 >> 9, v1 >> 9));
      }
    }
  }
};

// Full sign bytes, no parity; 10-bit indices.
struct Iq2_S : KernelFor<FormatId::iq2_s> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const float d = h2f(b + offsetof(Layout, d));
    const std::uint8_t *qs = b + offsetof(Layout, qs), *signs = b + offsetof(Layout, signs),
                       *qh = b + offsetof(Layout, qh), *scales = b + offsetof(Layout, scales);
    const FloatGrids& g = float_grids();  // once per block: a call to another file
    const float* grid = g.iq2s;
    for (int ib = 0; ib < 8; ++ib) {
      const unsigned h = qh[ib];
      for (int p = 0; p < 2; ++p) {
        const int l0 = 2 * p, l1 = 2 * p + 1;
        const unsigned idx0 = qs[4 * ib + l0] | (((h >> (2 * l0)) & 3) << 8);
        const unsigned idx1 = qs[4 * ib + l1] | (((h >> (2 * l1)) & 3) << 8);
        const VF db = vf_set1(iq_scale(d, p == 0 ? (scales[ib] & 15u) : (scales[ib] >> 4u), 0.25f));
        const VF mag = grid_pair(grid, idx0, idx1);
        out.put(i + 32 * ib + 16 * p, flip_bytes(db * mag, g.sign_bytes, signs + 4 * ib + l0));
      }
    }
  }
};

struct Iq3_XXS : KernelFor<FormatId::iq3_xxs> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const float d = h2f(b + offsetof(Layout, d));
    const std::uint8_t *qs = b + offsetof(Layout, qs), *sas = b + offsetof(Layout, sas);
    const FloatGrids& g = float_grids();  // once per block: a call to another file
    const float* grid = g.iq3xxs;
    for (int ib = 0; ib < 8; ++ib) {
      const std::uint32_t W = rd32(sas + 4 * ib);
      const VF db = vf_set1(iq_scale(d, W >> 28, 0.5f));  // 0.5 here, not 0.25
      for (int p = 0; p < 2; ++p) {
        const std::uint8_t* q = qs + 8 * ib + 4 * p;
        const VF mag = grid_quad(grid, q[0], q[1], q[2], q[3]);
        out.put(i + 32 * ib + 16 * p,
                flip_codes(db * mag, g.sign_codes, (W >> (14 * p)) & 127, (W >> (14 * p + 7)) & 127));
      }
    }
  }
};

// db = d * float(1 + 2s): one exact product; 9-bit indices; full sign bytes.
struct Iq3_S : KernelFor<FormatId::iq3_s> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const float d = h2f(b + offsetof(Layout, d));
    const std::uint8_t *qs = b + offsetof(Layout, qs), *qh = b + offsetof(Layout, qh),
                       *signs = b + offsetof(Layout, signs), *scales = b + offsetof(Layout, scales);
    const FloatGrids& g = float_grids();  // once per block: a call to another file
    const float* grid = g.iq3s;
    for (int ib = 0; ib < 8; ++ib) {
      const int s = (ib % 2 == 0) ? (scales[ib / 2] & 15) : (scales[ib / 2] >> 4);
      const VF db = vf_set1(d * static_cast<float>(1 + 2 * s));
      const unsigned h = qh[ib];
      for (int p = 0; p < 2; ++p) {
        // Index m = qs[8 ib + m] + 256 * bit m of qh[ib].
        const std::uint8_t* q = qs + 8 * ib + 4 * p;
        const int m = 4 * p;
        const VF mag = grid_quad(grid, q[0] | (((h >> m) & 1) << 8), q[1] | (((h >> (m + 1)) & 1) << 8),
                                 q[2] | (((h >> (m + 2)) & 1) << 8), q[3] | (((h >> (m + 3)) & 1) << 8));
        out.put(i + 32 * ib + 16 * p, flip_bytes(db * mag, g.sign_bytes, signs + 4 * ib + 2 * p));
      }
    }
  }
};

// Two iq1s_grid entries as 16 signed values (-1, 0, +1).
inline VF iq1_pair(std::uint64_t g0, std::uint64_t g1) {
  return to_f(vi_i8(_mm_set_epi64x(static_cast<long long>(g1), static_cast<long long>(g0))));
}

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
inline VF iq4_values(__m128i codes) {
  const __m128i table = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kKvaluesIq4nl.data()));
  return to_f(vi_i8(_mm_shuffle_epi8(table, codes)));
}

struct Iq4_NL : KernelFor<FormatId::iq4_nl> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const VF d = vf_set1(h2f(b + offsetof(Layout, d)));
    const __m128i q = load16(b + offsetof(Layout, qs));
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
      const __m128i q = load16(qs + 16 * ib);
      out.put(i + 32 * ib, dl * iq4_values(nib_lo(q)));
      out.put(i + 32 * ib + 16, dl * iq4_values(nib_hi(q)));
    }
  }
};

}  // namespace

std::span<const FusedDecoders> iq_decoders() {
  static constexpr FusedDecoders kRows[] = {row<Iq2_XXS>(), row<Iq2_XS>(), row<Iq2_S>(),  row<Iq3_XXS>(), row<Iq3_S>(),
                                            row<Iq1_S>(),   row<Iq1_M>(),  row<Iq4_NL>(), row<Iq4_XS>()};
  return kRows;
}

}  // namespace onnxq::simd::ONNXQ_SIMD_NS
