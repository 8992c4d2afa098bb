// Reference decoders of the IQ formats (spec §7): the grid-codebook ones iq2_xxs, iq2_xs, iq2_s,
// iq3_xxs, iq3_s (§7.1-§7.5), whose signs multiply by ±1.0 after the magnitude product,
// y = (db * g) * sgn; the ternary-grid iq1_s, iq1_m (§7.6, §7.7) and the non-linear iq4_nl,
// iq4_xs (§7.8, §7.9).
#include <cstddef>

#include "formats/block_layouts.hpp"
#include "formats/codebooks.hpp"
#include "reference/block_io.hpp"
#include "reference/decoders.hpp"

namespace onnxq::reference {

using namespace formats;  // the layout structs, FormatId and the codebooks

namespace {

inline float sign_of(unsigned signs, int k) { return ((signs >> k) & 1) ? -1.0f : 1.0f; }
inline float grid_byte(std::uint64_t entry, int k) { return static_cast<float>((entry >> (8 * k)) & 0xFF); }

void iq2_xxs_block(const std::uint8_t* b, float* y) {
  const float d = half_at(b + offsetof(BlockIq2_XXS, d));
  const std::uint8_t* qs = b + offsetof(BlockIq2_XXS, qs);
  for (int ib = 0; ib < 8; ++ib) {
    const std::uint8_t* o = qs + 8 * ib;
    const std::uint32_t W = u32_at(o + 4);
    const float db = (d * (0.5f + static_cast<float>(W >> 28))) * 0.25f;
    for (int l = 0; l < 4; ++l) {
      const std::uint64_t grid = kIq2xxsGrid[o[l]];
      const unsigned signs = kKsignsIq2xs[(W >> (7 * l)) & 127];
      for (int k = 0; k < 8; ++k) y[32 * ib + 8 * l + k] = (db * grid_byte(grid, k)) * sign_of(signs, k);
    }
  }
}

// Low nibble scales the first 16 elements of group ib, high nibble the last 16.
inline float iq2_group_scale(float d, std::uint8_t scale_byte, int l) {
  const int s = (l < 2) ? (scale_byte & 15) : (scale_byte >> 4);
  return (d * (0.5f + static_cast<float>(s))) * 0.25f;
}

void iq2_xs_block(const std::uint8_t* b, float* y) {
  const float d = half_at(b + offsetof(BlockIq2_XS, d));
  const std::uint8_t* qs = b + offsetof(BlockIq2_XS, qs);
  const std::uint8_t* scales = b + offsetof(BlockIq2_XS, scales);
  for (int ib = 0; ib < 8; ++ib) {
    for (int l = 0; l < 4; ++l) {
      const std::uint32_t v = u16_at(qs + 2 * (4 * ib + l));
      const float db = iq2_group_scale(d, scales[ib], l);
      const std::uint64_t grid = kIq2xsGrid[v & 511];
      const unsigned signs = kKsignsIq2xs[v >> 9];
      for (int k = 0; k < 8; ++k) y[32 * ib + 8 * l + k] = (db * grid_byte(grid, k)) * sign_of(signs, k);
    }
  }
}

// iq2_s reads a full sign byte per 8 elements: no parity, no ksigns lookup.
void iq2_s_block(const std::uint8_t* b, float* y) {
  const float d = half_at(b + offsetof(BlockIq2_S, d));
  const std::uint8_t* qs = b + offsetof(BlockIq2_S, qs);
  const std::uint8_t* sign_bytes = b + offsetof(BlockIq2_S, signs);
  const std::uint8_t* qh = b + offsetof(BlockIq2_S, qh);
  const std::uint8_t* scales = b + offsetof(BlockIq2_S, scales);
  for (int ib = 0; ib < 8; ++ib) {
    for (int l = 0; l < 4; ++l) {
      const int idx = qs[4 * ib + l] + 256 * ((qh[ib] >> (2 * l)) & 3);
      const float db = iq2_group_scale(d, scales[ib], l);
      const unsigned signs = sign_bytes[4 * ib + l];
      const std::uint64_t grid = kIq2sGrid[idx];
      for (int k = 0; k < 8; ++k) y[32 * ib + 8 * l + k] = (db * grid_byte(grid, k)) * sign_of(signs, k);
    }
  }
}

void iq3_xxs_block(const std::uint8_t* b, float* y) {
  const float d = half_at(b + offsetof(BlockIq3_XXS, d));
  const std::uint8_t* qs = b + offsetof(BlockIq3_XXS, qs);
  const std::uint8_t* sas = b + offsetof(BlockIq3_XXS, sas);
  for (int ib = 0; ib < 8; ++ib) {
    const std::uint32_t W = u32_at(sas + 4 * ib);
    const float db = (d * (0.5f + static_cast<float>(W >> 28))) * 0.5f;  // 0.5 here, not 0.25
    for (int l = 0; l < 4; ++l) {
      const unsigned signs = kKsignsIq2xs[(W >> (7 * l)) & 127];
      for (int k = 0; k < 8; ++k) {
        const std::uint32_t grid = kIq3xxsGrid[qs[8 * ib + 2 * l + k / 4]];
        y[32 * ib + 8 * l + k] = (db * grid_byte(grid, k % 4)) * sign_of(signs, k);
      }
    }
  }
}

// iq3_s: sign bytes read directly (like iq2_s); db has no 0.5/0.25 factor.
void iq3_s_block(const std::uint8_t* b, float* y) {
  const float d = half_at(b + offsetof(BlockIq3_S, d));
  const std::uint8_t* qs = b + offsetof(BlockIq3_S, qs);
  const std::uint8_t* qh = b + offsetof(BlockIq3_S, qh);
  const std::uint8_t* sign_bytes = b + offsetof(BlockIq3_S, signs);
  const std::uint8_t* scales = b + offsetof(BlockIq3_S, scales);
  for (int ib = 0; ib < 8; ++ib) {
    const int s = (ib % 2 == 0) ? (scales[ib / 2] & 15) : (scales[ib / 2] >> 4);
    const float db = d * static_cast<float>(1 + 2 * s);
    for (int l = 0; l < 4; ++l) {
      const unsigned signs = sign_bytes[4 * ib + l];
      for (int k = 0; k < 8; ++k) {
        const int m = 2 * l + k / 4;
        const int idx = qs[8 * ib + m] + 256 * ((qh[ib] >> m) & 1);
        y[32 * ib + 8 * l + k] = (db * grid_byte(kIq3sGrid[idx], k % 4)) * sign_of(signs, k);
      }
    }
  }
}

// §7.6-§7.9

// Grid byte k of an iq1s_grid entry is a signed -1/0/+1.
inline float iq1_grid_value(std::uint64_t entry, int k) {
  return static_cast<float>(i8_of(static_cast<std::uint8_t>((entry >> (8 * k)) & 0xFF)));
}

void iq1_s_block(const std::uint8_t* b, float* y) {
  const float d = half_at(b + offsetof(BlockIq1_S, d));
  const std::uint8_t* qs = b + offsetof(BlockIq1_S, qs);
  const std::uint8_t* qh = b + offsetof(BlockIq1_S, qh);
  for (int ib = 0; ib < 8; ++ib) {
    const std::uint32_t H = u16_at(qh + 2 * ib);
    const float dl = d * static_cast<float>(2 * ((H >> 12) & 7) + 1);
    const float delta = (H & 0x8000) ? -kIq1sDelta : kIq1sDelta;
    for (int l = 0; l < 4; ++l) {
      const std::uint64_t grid = kIq1sGrid[qs[4 * ib + l] + 256 * ((H >> (3 * l)) & 7)];
      // The delta shifts the grid value before scaling: dl * (g + delta) (spec §7.6).
      for (int k = 0; k < 8; ++k) y[32 * ib + 8 * l + k] = dl * (iq1_grid_value(grid, k) + delta);
    }
  }
}

void iq1_m_block(const std::uint8_t* b, float* y) {
  const std::uint8_t* qs = b + offsetof(BlockIq1_M, qs);
  const std::uint8_t* qh = b + offsetof(BlockIq1_M, qh);
  const std::uint8_t* sc = b + offsetof(BlockIq1_M, scales);
  std::uint32_t w[4];
  for (int i = 0; i < 4; ++i) w[i] = u16_at(sc + 2 * i);
  // The half scale is assembled from the four words' top nibbles, w0 least significant.
  const std::uint32_t dbits = (w[0] >> 12) | ((w[1] >> 12) << 4) | ((w[2] >> 12) << 8) | ((w[3] >> 12) << 12);
  const float d = half_to_float(static_cast<std::uint16_t>(dbits));
  for (int ib = 0; ib < 8; ++ib) {
    for (int l = 0; l < 4; ++l) {
      const std::uint8_t hbyte = qh[2 * ib + l / 2];
      const int nib = (l % 2 == 0) ? (hbyte & 15) : (hbyte >> 4);
      const int idx = qs[4 * ib + l] + 256 * (nib & 7);
      const float delta = (nib & 8) ? -kIq1mDelta : kIq1mDelta;
      const int s = static_cast<int>((w[ib / 2] >> (6 * (ib % 2) + 3 * (l / 2))) & 7);
      const float dl = d * static_cast<float>(2 * s + 1);
      const std::uint64_t grid = kIq1sGrid[idx];
      for (int k = 0; k < 8; ++k) y[32 * ib + 8 * l + k] = dl * (iq1_grid_value(grid, k) + delta);
    }
  }
}

void iq4_nl_block(const std::uint8_t* b, float* y) {
  const float d = half_at(b + offsetof(BlockIq4_NL, d));
  const std::uint8_t* qs = b + offsetof(BlockIq4_NL, qs);
  for (int j = 0; j < 16; ++j) {
    y[j] = d * static_cast<float>(kKvaluesIq4nl[qs[j] & 15]);
    y[j + 16] = d * static_cast<float>(kKvaluesIq4nl[qs[j] >> 4]);
  }
}

void iq4_xs_block(const std::uint8_t* b, float* y) {
  const float d = half_at(b + offsetof(BlockIq4_XS, d));
  const std::uint32_t sh = u16_at(b + offsetof(BlockIq4_XS, scales_h));
  const std::uint8_t* sl = b + offsetof(BlockIq4_XS, scales_l);
  const std::uint8_t* qs = b + offsetof(BlockIq4_XS, qs);
  for (int ib = 0; ib < 8; ++ib) {
    const int lo = (ib % 2 == 0) ? (sl[ib / 2] & 15) : (sl[ib / 2] >> 4);
    const int ls = lo + 16 * static_cast<int>((sh >> (2 * ib)) & 3);
    const float dl = d * static_cast<float>(ls - 32);
    const std::uint8_t* group = qs + 16 * ib;
    for (int t = 0; t < 16; ++t) {
      y[32 * ib + t] = dl * static_cast<float>(kKvaluesIq4nl[group[t] & 15]);
      y[32 * ib + t + 16] = dl * static_cast<float>(kKvaluesIq4nl[group[t] >> 4]);
    }
  }
}

}  // namespace

void decode_iq2_xxs(const std::uint8_t* s, std::size_t n, float* y) {
  decode_run<FormatId::iq2_xxs, iq2_xxs_block>(s, n, y);
}
void decode_iq2_xs(const std::uint8_t* s, std::size_t n, float* y) {
  decode_run<FormatId::iq2_xs, iq2_xs_block>(s, n, y);
}
void decode_iq2_s(const std::uint8_t* s, std::size_t n, float* y) { decode_run<FormatId::iq2_s, iq2_s_block>(s, n, y); }
void decode_iq3_xxs(const std::uint8_t* s, std::size_t n, float* y) {
  decode_run<FormatId::iq3_xxs, iq3_xxs_block>(s, n, y);
}
void decode_iq3_s(const std::uint8_t* s, std::size_t n, float* y) { decode_run<FormatId::iq3_s, iq3_s_block>(s, n, y); }

void decode_iq1_s(const std::uint8_t* s, std::size_t n, float* y) { decode_run<FormatId::iq1_s, iq1_s_block>(s, n, y); }
void decode_iq1_m(const std::uint8_t* s, std::size_t n, float* y) { decode_run<FormatId::iq1_m, iq1_m_block>(s, n, y); }
void decode_iq4_nl(const std::uint8_t* s, std::size_t n, float* y) {
  decode_run<FormatId::iq4_nl, iq4_nl_block>(s, n, y);
}
void decode_iq4_xs(const std::uint8_t* s, std::size_t n, float* y) {
  decode_run<FormatId::iq4_xs, iq4_xs_block>(s, n, y);
}

}  // namespace onnxq::reference
