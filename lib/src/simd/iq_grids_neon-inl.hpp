// The IQ grid kernels of the NEON path (iq2_xxs, iq2_xs, iq2_s, iq3_xxs, iq3_s). Per 16
// elements: the grid rows of their indices (float32 rows of float_grids(), two or four q-register
// loads each, no per-element gather), one product by the group's scale, then the signs as an xor
// with sign-mask rows (for the 7-bit codes the rows already hold the parity bit). Indices and
// scales are a few scalar operations per group, which AArch64 issues beside the vector work.
// Included by iq-inl.hpp, inside its namespace, after the helpers it shares.

// Grid rows of entry length 8 (iq2) or 4 (iq3).
inline const float* row8(const float* grid, unsigned index) { return grid + 8 * index; }
inline const float* row4(const float* grid, unsigned index) { return grid + 4 * index; }

// Group scales whose low nibble scales a group's first 16 elements and high nibble its last 16.
inline float nibble_scale(float d, std::uint32_t byte, int h) {
  return iq_scale(d, h == 0 ? byte & 15 : byte >> 4, 0.25f);
}

struct Iq2_XXS : KernelFor<FormatId::iq2_xxs> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const float d = h2f(b + offsetof(Layout, d));
    const std::uint8_t* qs = b + offsetof(Layout, qs);
    const FloatGrids& g = grids();
    // Group ib is 8 bytes: four grid indices, then W (four sign codes, the scale in bits 28-31).
    for (int ib = 0; ib < 8; ++ib) {
      const std::uint8_t* idx = qs + 8 * ib;
      const std::uint32_t w = rd32(qs + 8 * ib + 4);
      const VF db = vf_set1(iq_scale(d, w >> 28, 0.25f));
      for (int h = 0; h < 2; ++h)
        out.put(i + 32 * ib + 16 * h,
                flip_codes(db * vf_rows8(row8(g.iq2xxs, idx[2 * h]), row8(g.iq2xxs, idx[2 * h + 1])), g, nullptr,
                           (w >> (14 * h)) & 127, (w >> (14 * h + 7)) & 127));
    }
  }
};

// 16-bit words: a 9-bit index, a 7-bit sign code above it.
struct Iq2_XS : KernelFor<FormatId::iq2_xs> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const float d = h2f(b + offsetof(Layout, d));
    const std::uint8_t *qs = b + offsetof(Layout, qs), *scales = b + offsetof(Layout, scales);
    const FloatGrids& g = grids();
    for (int ib = 0; ib < 8; ++ib)
      for (int h = 0; h < 2; ++h) {
        const std::uint32_t w0 = rd16(qs + 2 * (4 * ib + 2 * h)), w1 = rd16(qs + 2 * (4 * ib + 2 * h + 1));
        const VF db = vf_set1(nibble_scale(d, scales[ib], h));
        out.put(i + 32 * ib + 16 * h, flip_codes(db * vf_rows8(row8(g.iq2xs, w0 & 511), row8(g.iq2xs, w1 & 511)), g,
                                                 nullptr, w0 >> 9, w1 >> 9));
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
    for (int ib = 0; ib < 8; ++ib)
      for (int h = 0; h < 2; ++h) {
        // Index l of group ib is qs[4 ib + l] + 256 * bits 2l..2l+1 of qh[ib].
        const int l0 = 2 * h, l1 = 2 * h + 1;
        const unsigned i0 = qs[4 * ib + l0] | (((qh[ib] >> (2 * l0)) & 3u) << 8);
        const unsigned i1 = qs[4 * ib + l1] | (((qh[ib] >> (2 * l1)) & 3u) << 8);
        const VF db = vf_set1(nibble_scale(d, scales[ib], h));
        out.put(i + 32 * ib + 16 * h,
                flip_bytes(db * vf_rows8(row8(g.iq2s, i0), row8(g.iq2s, i1)), g.sign_bytes, signs + 4 * ib + 2 * h));
      }
  }
};

struct Iq3_XXS : KernelFor<FormatId::iq3_xxs> {
  template <class Out>
  static void block(const std::uint8_t* b, const Out& out, std::size_t i) {
    const float d = h2f(b + offsetof(Layout, d));
    const std::uint8_t *qs = b + offsetof(Layout, qs), *sas = b + offsetof(Layout, sas);
    const FloatGrids& g = grids();
    for (int ib = 0; ib < 8; ++ib) {
      const std::uint32_t w = rd32(sas + 4 * ib);         // four sign codes, the scale in bits 28-31
      const VF db = vf_set1(iq_scale(d, w >> 28, 0.5f));  // 0.5 here, not 0.25
      for (int h = 0; h < 2; ++h) {
        const std::uint8_t* idx = qs + 8 * ib + 4 * h;
        const VF mag =
            vf_rows4(row4(g.iq3xxs, idx[0]), row4(g.iq3xxs, idx[1]), row4(g.iq3xxs, idx[2]), row4(g.iq3xxs, idx[3]));
        out.put(i + 32 * ib + 16 * h,
                flip_codes(db * mag, g, nullptr, (w >> (14 * h)) & 127, (w >> (14 * h + 7)) & 127));
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
    for (int ib = 0; ib < 8; ++ib) {
      const int s = (ib % 2 == 0) ? (scales[ib / 2] & 15) : (scales[ib / 2] >> 4);
      const VF db = vf_set1(d * static_cast<float>(1 + 2 * s));
      for (int h = 0; h < 2; ++h) {
        // Index m of group ib is qs[8 ib + m] + 256 * bit m of qh[ib].
        unsigned idx[4];
        for (int k = 0; k < 4; ++k) {
          const int m = 4 * h + k;
          idx[k] = qs[8 * ib + m] | (((qh[ib] >> m) & 1u) << 8);
        }
        const VF mag = vf_rows4(row4(g.iq3s, idx[0]), row4(g.iq3s, idx[1]), row4(g.iq3s, idx[2]), row4(g.iq3s, idx[3]));
        out.put(i + 32 * ib + 16 * h, flip_bytes(db * mag, g.sign_bytes, signs + 4 * ib + 2 * h));
      }
    }
  }
};
