// The IQ grid kernels of the x86 paths (iq2_xxs, iq2_xs, iq2_s, iq3_xxs, iq3_s): a whole-block
// preparation in AVX2 integer ops (both x86 ISAs have them), then per 16 elements a row load, a
// product and a sign flip; on AVX-512 the *_Codes kernels of iq_codes-inl.hpp. Included by
// iq-inl.hpp, inside its namespace, after the helpers it shares.

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
