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

// Whole-block preparation, eight groups per vector instruction (AVX2 integer ops, which
// both ISAs have): the 32 sign bytes in iq2_s order (byte 4 ib + l for sub-group l) and
// the scales, so the per-16-element work is a row load, a product and a sign flip.
struct IqPrep {
  alignas(32) std::uint16_t rows[64];  // each grid entry's first float, index * entry length
  alignas(32) std::uint8_t signs[32];
  alignas(32) float db_lo[8];  // group ib's scale (of its first 16 elements)
  alignas(32) float db_hi[8];  // the scale of its last 16 elements where it differs
};

inline __m256i u32x8(const std::uint8_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
inline __m256i set8(std::int32_t x) { return _mm256_set1_epi32(x); }
// Stores 16 byte-sized grid indices times 2^Shift (the entry length) as uint16 at rows.
template <int Shift>
inline void index_rows(std::uint16_t* rows, __m128i idx) {
  _mm256_store_si256(reinterpret_cast<__m256i*>(rows), _mm256_slli_epi16(_mm256_cvtepu8_epi16(idx), Shift));
}
// The float grids and the grid codes, set by iq_decoders(), which the dispatcher calls (on the
// first decode) before any of these kernels can run. Initialized at namespace scope, every command
// (even --version) built the tables at start-up; a function-local static instead made the kernels
// re-check its guard after every memory fence, and iq3_s ran 1.7x slower.
const FloatGrids* g_grids = nullptr;
const GridCodes* g_codes = nullptr;
inline const FloatGrids& grids() { return *g_grids; }

// Words whose bits 0-27 hold four 7-bit codes -> four ksigns_iq2xs bytes each, lowest first:
// byte = code | parity(code) << 7 (the parity folded within each byte).
inline __m256i ksigns_bytes(__m256i w) {
  __m256i t = _mm256_and_si256(w, set8(0x7F));
  t = _mm256_or_si256(t, _mm256_and_si256(_mm256_slli_epi32(w, 1), set8(0x7F00)));
  t = _mm256_or_si256(t, _mm256_and_si256(_mm256_slli_epi32(w, 2), set8(0x7F0000)));
  t = _mm256_or_si256(t, _mm256_and_si256(_mm256_slli_epi32(w, 3), set8(0x7F000000)));
  __m256i par = _mm256_xor_si256(t, _mm256_srli_epi32(t, 4));
  par = _mm256_xor_si256(par, _mm256_srli_epi32(par, 2));
  par = _mm256_xor_si256(par, _mm256_srli_epi32(par, 1));
  return _mm256_or_si256(t, _mm256_slli_epi32(_mm256_and_si256(par, set8(0x01010101)), 7));
}
// 16 uint16 fields with a 7-bit code in bits 9-15 -> its ksigns byte, in the low byte of each.
inline __m256i ksigns_words(__m256i v) {
  const __m256i c = _mm256_srli_epi16(v, 9);
  __m256i par = _mm256_xor_si256(c, _mm256_srli_epi16(c, 4));
  par = _mm256_xor_si256(par, _mm256_srli_epi16(par, 2));
  par = _mm256_xor_si256(par, _mm256_srli_epi16(par, 1));
  return _mm256_or_si256(c, _mm256_slli_epi16(_mm256_and_si256(par, _mm256_set1_epi16(1)), 7));
}
// (d * (0.5 + s)) * f in eight lanes, the scalar order of iq_scale.
inline __m256 iq_scales(float d, __m256i s, float f) {
  return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(d), _mm256_add_ps(_mm256_set1_ps(0.5f), _mm256_cvtepi32_ps(s))),
                       _mm256_set1_ps(f));
}
// Scale bytes whose low nibble scales a group's first 16 elements and high nibble its last 16.
inline void nibble_scales(float* db_lo, float* db_hi, float d, const std::uint8_t* scales) {
  const __m256i sc = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(scales)));
  _mm256_store_ps(db_lo, iq_scales(d, _mm256_and_si256(sc, set8(15)), 0.25f));
  _mm256_store_ps(db_hi, iq_scales(d, _mm256_srli_epi32(sc, 4), 0.25f));
}

struct Iq2_XXS : KernelFor<FormatId::iq2_xxs> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const float d = h2f(b + offsetof(Layout, d));
    const std::uint8_t* qs = b + offsetof(Layout, qs);
    const FloatGrids& g = grids();
    const float* grid = g.iq2xxs;
    // Group ib is 8 bytes: four grid indices, then W (four sign codes, the scale in bits 28-31).
    const __m256 a = _mm256_castsi256_ps(u32x8(qs)), c = _mm256_castsi256_ps(u32x8(qs + 32));
    const __m256i W = _mm256_permute4x64_epi64(_mm256_castps_si256(_mm256_shuffle_ps(a, c, 0xDD)), 0xD8);
    const __m256i I = _mm256_permute4x64_epi64(_mm256_castps_si256(_mm256_shuffle_ps(a, c, 0x88)), 0xD8);
    IqPrep p;
    index_rows<3>(p.rows, _mm256_castsi256_si128(I));
    index_rows<3>(p.rows + 16, _mm256_extracti128_si256(I, 1));
    _mm256_store_si256(reinterpret_cast<__m256i*>(p.signs), ksigns_bytes(W));
    _mm256_store_ps(p.db_lo, iq_scales(d, _mm256_srli_epi32(W, 28), 0.25f));
    for (int ib = 0; ib < 8; ++ib) {
      const std::uint16_t* r = p.rows + 4 * ib;
      const std::uint32_t w = rd32(qs + 8 * ib + 4);
      const VF db = vf_set1(p.db_lo[ib]);
      for (int h = 0; h < 2; ++h)
        out.put(i + 32 * ib + 16 * h,
                flip_codes(db * vf_rows8(grid + r[2 * h], grid + r[2 * h + 1]), g, p.signs + 4 * ib + 2 * h,
                           (w >> (14 * h)) & 127, (w >> (14 * h + 7)) & 127));
    }
  }
};

struct Iq2_XS : KernelFor<FormatId::iq2_xs> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const float d = h2f(b + offsetof(Layout, d));
    const std::uint8_t *qs = b + offsetof(Layout, qs), *scales = b + offsetof(Layout, scales);
    const FloatGrids& g = grids();
    const float* grid = g.iq2xs;
    IqPrep p;
    for (int k = 0; k < 2; ++k)  // 9-bit indices times 8: at most 4088, a uint16
      _mm256_store_si256(reinterpret_cast<__m256i*>(p.rows + 16 * k),
                         _mm256_slli_epi16(_mm256_and_si256(u32x8(qs + 32 * k), _mm256_set1_epi16(511)), 3));
    const __m256i packed = _mm256_packus_epi16(ksigns_words(u32x8(qs)), ksigns_words(u32x8(qs + 32)));
    _mm256_store_si256(reinterpret_cast<__m256i*>(p.signs), _mm256_permute4x64_epi64(packed, 0xD8));
    nibble_scales(p.db_lo, p.db_hi, d, scales);
    for (int ib = 0; ib < 8; ++ib) {
      for (int h = 0; h < 2; ++h) {
        const std::uint16_t* r = p.rows + 4 * ib + 2 * h;
        const VF db = vf_set1(h == 0 ? p.db_lo[ib] : p.db_hi[ib]);
        out.put(i + 32 * ib + 16 * h,
                flip_codes(db * vf_rows8(grid + r[0], grid + r[1]), g, p.signs + 4 * ib + 2 * h,
                           rd16(qs + 2 * (4 * ib + 2 * h)) >> 9, rd16(qs + 2 * (4 * ib + 2 * h + 1)) >> 9));
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
    const FloatGrids& g = grids();
    const float* grid = g.iq2s;
    IqPrep p;
    nibble_scales(p.db_lo, p.db_hi, d, scales);
    // Index l of group ib is qs[4 ib + l] + 256 * bits 2l..2l+1 of qh[ib]; times 8, the entry length.
    for (int k = 0; k < 2; ++k) {
      const __m128i spread = _mm_shuffle_epi8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(qh + 4 * k)),
                                              _mm_setr_epi8(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3));
      // (h >> 2l) & 3 as ((h << (6 - 2l)) >> 6) & 3: a multiply by a per-lane power of two.
      const __m256i up = _mm256_mullo_epi16(_mm256_cvtepu8_epi16(spread),
                                            _mm256_setr_epi16(64, 16, 4, 1, 64, 16, 4, 1, 64, 16, 4, 1, 64, 16, 4, 1));
      const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(up, 6), _mm256_set1_epi16(3));
      const __m256i idx = _mm256_or_si256(_mm256_cvtepu8_epi16(load16(qs + 16 * k)), _mm256_slli_epi16(hi, 8));
      _mm256_store_si256(reinterpret_cast<__m256i*>(p.rows + 16 * k), _mm256_slli_epi16(idx, 3));
    }
    for (int ib = 0; ib < 8; ++ib) {
      for (int h = 0; h < 2; ++h) {
        const std::uint16_t* r = p.rows + 4 * ib + 2 * h;
        const VF db = vf_set1(h == 0 ? p.db_lo[ib] : p.db_hi[ib]);
        out.put(i + 32 * ib + 16 * h,
                flip_bytes(db * vf_rows8(grid + r[0], grid + r[1]), g.sign_bytes, signs + 4 * ib + 2 * h));
      }
    }
  }
};

struct Iq3_XXS : KernelFor<FormatId::iq3_xxs> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const float d = h2f(b + offsetof(Layout, d));
    const std::uint8_t *qs = b + offsetof(Layout, qs), *sas = b + offsetof(Layout, sas);
    const FloatGrids& g = grids();
    const float* grid = g.iq3xxs;
    const __m256i W = u32x8(sas);  // per group: four sign codes, the scale in bits 28-31
    IqPrep p;
    for (int k = 0; k < 4; ++k) index_rows<2>(p.rows + 16 * k, load16(qs + 16 * k));
    _mm256_store_si256(reinterpret_cast<__m256i*>(p.signs), ksigns_bytes(W));
    _mm256_store_ps(p.db_lo, iq_scales(d, _mm256_srli_epi32(W, 28), 0.5f));  // 0.5 here, not 0.25
    for (int ib = 0; ib < 8; ++ib) {
      const std::uint32_t w = rd32(sas + 4 * ib);
      const VF db = vf_set1(p.db_lo[ib]);
      for (int h = 0; h < 2; ++h) {
        const std::uint16_t* r = p.rows + 8 * ib + 4 * h;
        out.put(i + 32 * ib + 16 * h,
                flip_codes(db * vf_rows4(grid + r[0], grid + r[1], grid + r[2], grid + r[3]), g,
                           p.signs + 4 * ib + 2 * h, (w >> (14 * h)) & 127, (w >> (14 * h + 7)) & 127));
      }
    }
  }
};

struct Iq3_S : KernelFor<FormatId::iq3_s> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const float d = h2f(b + offsetof(Layout, d));
    const std::uint8_t *qs = b + offsetof(Layout, qs), *qh = b + offsetof(Layout, qh),
                       *signs = b + offsetof(Layout, signs), *scales = b + offsetof(Layout, scales);
    const FloatGrids& g = grids();
    const float* grid = g.iq3s;
    // Index m of group ib is qs[8 ib + m] + 256 * bit m of qh[ib]; times 4, the entry length.
    IqPrep prep;
    for (int k = 0; k < 4; ++k) {
      const __m256i lo = _mm256_cvtepu8_epi16(load16(qs + 16 * k));
      const __m256i hi = _mm256_cvtepu8_epi16(bytes_where(rd16(qh + 2 * k), _mm_set1_epi8(1)));
      _mm256_store_si256(reinterpret_cast<__m256i*>(prep.rows + 16 * k),
                         _mm256_slli_epi16(_mm256_or_si256(lo, _mm256_slli_epi16(hi, 8)), 2));
    }
    for (int ib = 0; ib < 8; ++ib) {
      const int s = (ib % 2 == 0) ? (scales[ib / 2] & 15) : (scales[ib / 2] >> 4);
      const VF db = vf_set1(d * static_cast<float>(1 + 2 * s));
      for (int h = 0; h < 2; ++h) {
        const std::uint16_t* r = prep.rows + 8 * ib + 4 * h;
        const VF mag = vf_rows4(grid + r[0], grid + r[1], grid + r[2], grid + r[3]);
        out.put(i + 32 * ib + 16 * h, flip_bytes(db * mag, g.sign_bytes, signs + 4 * ib + 2 * h));
      }
    }
  }
};

#if defined(__AVX512BW__)
#include "simd/iq_codes-inl.hpp"
#endif  // __AVX512BW__

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
