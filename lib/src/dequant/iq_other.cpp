// Ternary-grid and non-linear IQ formats: iq1_s, iq1_m, iq4_nl, iq4_xs (spec §7.6-§7.9).
#include <cstddef>

#include "dequant/block_io.hpp"
#include "dequant/block_layouts.hpp"
#include "dequant/codebooks.hpp"
#include "dequant/decoders.hpp"

namespace onnxq::dequant {
namespace {

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

void decode_iq1_s(const std::uint8_t* s, std::size_t n, float* y) { decode_run<BlockIq1_S, 256, iq1_s_block>(s, n, y); }
void decode_iq1_m(const std::uint8_t* s, std::size_t n, float* y) { decode_run<BlockIq1_M, 256, iq1_m_block>(s, n, y); }
void decode_iq4_nl(const std::uint8_t* s, std::size_t n, float* y) { decode_run<BlockIq4_NL, 32, iq4_nl_block>(s, n, y); }
void decode_iq4_xs(const std::uint8_t* s, std::size_t n, float* y) { decode_run<BlockIq4_XS, 256, iq4_xs_block>(s, n, y); }

}  // namespace onnxq::dequant
