// Grid-codebook IQ formats: iq2_xxs, iq2_xs, iq2_s, iq3_xxs, iq3_s (spec §7.1-§7.5).
// Signs multiply by ±1.0 after the magnitude product: y = (db * g) * sgn.
#include <cstddef>

#include "dequant/block_io.hpp"
#include "dequant/block_layouts.hpp"
#include "dequant/codebooks.hpp"
#include "dequant/decoders.hpp"

namespace onnxq::dequant {
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

}  // namespace

void decode_iq2_xxs(const std::uint8_t* s, std::size_t n, float* y) { decode_run<BlockIq2_XXS, 256, iq2_xxs_block>(s, n, y); }
void decode_iq2_xs(const std::uint8_t* s, std::size_t n, float* y) { decode_run<BlockIq2_XS, 256, iq2_xs_block>(s, n, y); }
void decode_iq2_s(const std::uint8_t* s, std::size_t n, float* y) { decode_run<BlockIq2_S, 256, iq2_s_block>(s, n, y); }
void decode_iq3_xxs(const std::uint8_t* s, std::size_t n, float* y) { decode_run<BlockIq3_XXS, 256, iq3_xxs_block>(s, n, y); }
void decode_iq3_s(const std::uint8_t* s, std::size_t n, float* y) { decode_run<BlockIq3_S, 256, iq3_s_block>(s, n, y); }

}  // namespace onnxq::dequant
