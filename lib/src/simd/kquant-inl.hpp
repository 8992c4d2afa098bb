// SIMD kernels for the k-quants q2_k, q3_k, q4_k, q5_k, q6_k, q8_k (spec §6), 256 elements
// per block in 16-element steps. Include after simd/kernels_common-inl.hpp.
namespace onnxq::simd::ONNXQ_SIMD_NS {
namespace {

// q2_k: y = (dl * float(q)) - ml with dl = d * sc, ml = dmin * mn per 16 elements.
// Element 128h + 32p + 16s + t has its code in qs byte 32h + 16s + t, bits 2p.
struct Q2_K : KernelFor<FormatId::q2_k> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    alignas(64) float dl[16], ml[16];  // d * sc and dmin * mn of the 16 sub-blocks, all exact
    const VB scales = load16(b + offsetof(Layout, scales));
    store_f(dl, to_f(vi_u8(nib_lo(scales))) * vf_set1(h2f(b + offsetof(Layout, d))));
    store_f(ml, to_f(vi_u8(nib_hi(scales))) * vf_set1(h2f(b + offsetof(Layout, dmin))));
    const std::uint8_t* qs = b + offsetof(Layout, qs);
    for (int h = 0; h < 2; ++h)
      for (int s = 0; s < 2; ++s) {
        const VB q = load16(qs + 32 * h + 16 * s);
        for (int p = 0; p < 4; ++p) {
          const int g = 8 * h + 2 * p + s;
          out.put(i + 16 * g, (vf_set1(dl[g]) * to_f(vi_u8(bits_of(q, 2 * p, 3)))) - vf_set1(ml[g]));
        }
      }
  }
};

// q3_k: y = dl * float(q), dl = d * sc(g), q = lo - 4 + 4 * hb (a clear high bit subtracts 4).
struct Q3_K : KernelFor<FormatId::q3_k> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    // sc(g) = low4 + 16 * high2 - 32: low4 from the nibbles of S[0..7] (low ones first),
    // high2 = (S[8 + g % 4] >> 2(g / 4)) & 3, i.e. bits 8(g % 4) + 2(g / 4) of u32(S + 8).
    const std::uint8_t* S = b + offsetof(Layout, scales);
    alignas(64) static constexpr std::int32_t kHighShift[16] = {0, 8,  16, 24, 2, 10, 18, 26,
                                                                4, 12, 20, 28, 6, 14, 22, 30};
    const VB s8 = load8(S);
    const VI low4 = vi_u8(join_lo8(nib_lo(s8), nib_hi(s8)));
    const VI high2 = srlv(vi_set1(static_cast<std::int32_t>(rd32(S + 8))), vi_load(kHighShift)) & vi_set1(3);
    alignas(64) float dl[16];
    store_f(dl, vf_set1(h2f(b + offsetof(Layout, d))) * to_f(low4 + slli<4>(high2) - vi_set1(32)));
    const std::uint8_t *hmask = b + offsetof(Layout, hmask), *qs = b + offsetof(Layout, qs);
    for (int s = 0; s < 2; ++s) {
      const VB hm = load16(hmask + 16 * s);
      for (int h = 0; h < 2; ++h) {
        const VB q = load16(qs + 32 * h + 16 * s);
        for (int p = 0; p < 4; ++p) {
          const int g = 8 * h + 2 * p + s;
          const VB lo = bits_of(q, 2 * p, 3);
          const VB hb4 = shl_bytes<2>(bits_of(hm, 4 * h + p, 1));  // bytes 0 or 4
          const VB val = sub_bytes(add_bytes(lo, hb4), set1_bytes(4));
          out.put(i + 16 * g, vf_set1(dl[g]) * to_f(vi_i8(val)));
        }
      }
    }
  }
};

// Eight 6-bit scales and mins shared by q4_k and q5_k (spec §6.3).
inline void k4_scales(const std::uint8_t* K, float d, float dmin, float* d1, float* m1) {
  for (int g = 0; g < 8; ++g) {
    int sc, mn;
    if (g < 4) {
      sc = K[g] & 63;
      mn = K[g + 4] & 63;
    } else {
      sc = (K[g + 4] & 15) + 16 * (K[g - 4] >> 6);
      mn = (K[g + 4] >> 4) + 16 * (K[g] >> 6);
    }
    d1[g] = d * static_cast<float>(sc);
    m1[g] = dmin * static_cast<float>(mn);
  }
}

// q4_k: y = (d1 * float(q)) - m1; chunk c holds sub-block 2c in low nibbles, 2c+1 in high.
struct Q4_K : KernelFor<FormatId::q4_k> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    float d1[8], m1[8];
    k4_scales(b + offsetof(Layout, scales), h2f(b + offsetof(Layout, d)), h2f(b + offsetof(Layout, dmin)), d1, m1);
    const std::uint8_t* qs = b + offsetof(Layout, qs);
    for (int c = 0; c < 4; ++c)
      for (int s = 0; s < 2; ++s) {
        const VB q = load16(qs + 32 * c + 16 * s);
        const int g0 = 2 * c, g1 = 2 * c + 1;
        out.put(i + 32 * g0 + 16 * s, (vf_set1(d1[g0]) * to_f(vi_u8(nib_lo(q)))) - vf_set1(m1[g0]));
        out.put(i + 32 * g1 + 16 * s, (vf_set1(d1[g1]) * to_f(vi_u8(nib_hi(q)))) - vf_set1(m1[g1]));
      }
  }
};

// q5_k: as q4_k plus a fifth bit, bit g of qh[l].
struct Q5_K : KernelFor<FormatId::q5_k> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    float d1[8], m1[8];
    k4_scales(b + offsetof(Layout, scales), h2f(b + offsetof(Layout, d)), h2f(b + offsetof(Layout, dmin)), d1, m1);
    const std::uint8_t *qh_bytes = b + offsetof(Layout, qh), *qs = b + offsetof(Layout, qs);
    for (int s = 0; s < 2; ++s) {
      const VB qh = load16(qh_bytes + 16 * s);
      for (int c = 0; c < 4; ++c) {
        const VB q = load16(qs + 32 * c + 16 * s);
        const int g0 = 2 * c, g1 = 2 * c + 1;
        const VB v0 = or_bytes(nib_lo(q), shl_bytes<4>(bits_of(qh, g0, 1)));
        const VB v1 = or_bytes(nib_hi(q), shl_bytes<4>(bits_of(qh, g1, 1)));
        out.put(i + 32 * g0 + 16 * s, (vf_set1(d1[g0]) * to_f(vi_u8(v0))) - vf_set1(m1[g0]));
        out.put(i + 32 * g1 + 16 * s, (vf_set1(d1[g1]) * to_f(vi_u8(v1))) - vf_set1(m1[g1]));
      }
    }
  }
};

// q6_k: y = (d * float(sc)) * float(q) — d·sc first (spec §6.5: the sign of zero).
// Element 128h + 32k + 16s + t: low nibble source ql[64h + 32(k%2) + 16s + t] (k<2 low, else
// high nibble), high bits qh[32h + 16s + t] >> 2k.
struct Q6_K : KernelFor<FormatId::q6_k> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    alignas(64) float ds[16];  // d * float(sc) per sub-block, rounded first (exact)
    store_f(ds, vf_set1(h2f(b + offsetof(Layout, d))) * to_f(vi_i8(load16(b + offsetof(Layout, scales)))));
    const std::uint8_t *ql = b + offsetof(Layout, ql), *qh_bytes = b + offsetof(Layout, qh);
    for (int h = 0; h < 2; ++h)
      for (int s = 0; s < 2; ++s) {
        const VB qh = load16(qh_bytes + 32 * h + 16 * s);
        const VB qa = load16(ql + 64 * h + 16 * s), qb = load16(ql + 64 * h + 32 + 16 * s);
        const VB lows[4] = {nib_lo(qa), nib_lo(qb), nib_hi(qa), nib_hi(qb)};
        for (int k = 0; k < 4; ++k) {
          const int j = 128 * h + 32 * k + 16 * s;
          const VB q = or_bytes(lows[k], shl_bytes<4>(bits_of(qh, 2 * k, 3)));  // 0..63
          out.put(i + j, vf_set1(ds[j / 16]) * to_f(vi_i8(sub_bytes(q, set1_bytes(32)))));
        }
      }
  }
};

// q8_k: y = d * float(q) with a float32 d (the one product that rounds).
struct Q8_K : KernelFor<FormatId::q8_k> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const VF d = vf_set1(f32_of_bits(rd32(b + offsetof(Layout, d))));
    const std::uint8_t* qs = b + offsetof(Layout, qs);
    for (int k = 0; k < 16; ++k) out.put(i + 16 * k, d * to_f(vi_i8(load16(qs + 16 * k))));
  }
};

}  // namespace

std::span<const FusedDecoders> kquant_decoders() {
  static constexpr FusedDecoders kRows[] = {row<Q2_K>(), row<Q3_K>(), row<Q4_K>(),
                                            row<Q5_K>(), row<Q6_K>(), row<Q8_K>()};
  return kRows;
}

}  // namespace onnxq::simd::ONNXQ_SIMD_NS
