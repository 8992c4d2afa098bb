// K-quants: q2_k, q3_k, q4_k, q5_k, q6_k, q8_k (spec §6). 256 elements per block.
#include <bit>
#include <cstddef>

#include "formats/block_layouts.hpp"
#include "reference/block_io.hpp"
#include "reference/decoders.hpp"

namespace onnxq::reference {

using namespace formats;  // the layout structs and FormatId

namespace {

// Element j = 128*h + 32*p + 16*s + l takes bits 2p of byte 32*h + 16*s + l; its sub-block is j/16.
void q2_k_block(const std::uint8_t* b, float* y) {
  const float d = half_at(b + offsetof(BlockQ2_K, d));
  const float dmin = half_at(b + offsetof(BlockQ2_K, dmin));
  const std::uint8_t* scales = b + offsetof(BlockQ2_K, scales);
  const std::uint8_t* qs = b + offsetof(BlockQ2_K, qs);
  for (int h = 0; h < 2; ++h)
    for (int p = 0; p < 4; ++p)
      for (int s = 0; s < 2; ++s) {
        const int g = 8 * h + 2 * p + s;
        const float dl = d * static_cast<float>(scales[g] & 15);
        const float ml = dmin * static_cast<float>(scales[g] >> 4);
        const std::uint8_t* q = qs + 32 * h + 16 * s;
        float* out = y + 16 * g;
        for (int l = 0; l < 16; ++l) out[l] = (dl * static_cast<float>((q[l] >> (2 * p)) & 3)) - ml;
      }
}

// Sixteen 6-bit signed scales of q3_k (spec §6.2).
inline int q3_k_scale(const std::uint8_t* S, int g) {
  const int low4 = g < 8 ? (S[g] & 15) : (S[g - 8] >> 4);
  const int high2 = (S[8 + (g % 4)] >> (2 * (g / 4))) & 3;
  return low4 + 16 * high2 - 32;
}

void q3_k_block(const std::uint8_t* b, float* y) {
  const float d = half_at(b + offsetof(BlockQ3_K, d));
  const std::uint8_t* hmask = b + offsetof(BlockQ3_K, hmask);
  const std::uint8_t* qs = b + offsetof(BlockQ3_K, qs);
  const std::uint8_t* S = b + offsetof(BlockQ3_K, scales);
  // Same plane layout as q2_k; the high bit of element j is bit j/32 = 4h + p of hmask[j % 32].
  for (int h = 0; h < 2; ++h)
    for (int p = 0; p < 4; ++p)
      for (int s = 0; s < 2; ++s) {
        const int g = 8 * h + 2 * p + s;
        const float dl = d * static_cast<float>(q3_k_scale(S, g));
        const std::uint8_t* q = qs + 32 * h + 16 * s;
        const std::uint8_t* hm = hmask + 16 * s;
        float* out = y + 16 * g;
        for (int l = 0; l < 16; ++l) {
          const int hb = (hm[l] >> (4 * h + p)) & 1;
          const int v = ((q[l] >> (2 * p)) & 3) - (hb ? 0 : 4);  // a clear high bit subtracts 4
          out[l] = dl * static_cast<float>(v);
        }
      }
}

// Eight 6-bit scales and mins shared by q4_k and q5_k (spec §6.3).
inline void k4_scale_min(const std::uint8_t* K, int g, int& sc, int& mn) {
  if (g < 4) {
    sc = K[g] & 63;
    mn = K[g + 4] & 63;
  } else {
    sc = (K[g + 4] & 15) + 16 * (K[g - 4] >> 6);
    mn = (K[g + 4] >> 4) + 16 * (K[g] >> 6);
  }
}

// q4_k and q5_k share the layout of scales and low nibbles; q5_k adds one high bit per
// element from qh (bit g of qh[l] for group g). y = d*sc*q - dmin*m in both (spec 6.3, 6.4).
template <class Block, bool kHighBit>
void k4_family_block(const std::uint8_t* b, float* y) {
  const float d = half_at(b + offsetof(Block, d));
  const float dmin = half_at(b + offsetof(Block, dmin));
  const std::uint8_t* K = b + offsetof(Block, scales);
  const std::uint8_t* qs = b + offsetof(Block, qs);
  for (int g = 0; g < 8; ++g) {
    int sc, mn;
    k4_scale_min(K, g, sc, mn);
    const float d1 = d * static_cast<float>(sc);
    const float m1 = dmin * static_cast<float>(mn);
    const std::uint8_t* chunk = qs + 32 * (g / 2);
    for (int l = 0; l < 32; ++l) {
      int q = (g % 2 == 0) ? (chunk[l] & 15) : (chunk[l] >> 4);
      if constexpr (kHighBit) q += 16 * (((b + offsetof(Block, qh))[l] >> g) & 1);
      y[32 * g + l] = (d1 * static_cast<float>(q)) - m1;
    }
  }
}

void q4_k_block(const std::uint8_t* b, float* y) { k4_family_block<BlockQ4_K, false>(b, y); }
void q5_k_block(const std::uint8_t* b, float* y) { k4_family_block<BlockQ5_K, true>(b, y); }

// Element j = 128*h + 32*k + l: low nibble of ql[64h + l (+32 for odd k)] (high nibble for k >= 2),
// high 2 bits at bits 2k of qh[32h + l]; sub-block j/16 = 8h + 2k + l/16.
void q6_k_block(const std::uint8_t* b, float* y) {
  const float d = half_at(b + offsetof(BlockQ6_K, d));
  const std::uint8_t* ql = b + offsetof(BlockQ6_K, ql);
  const std::uint8_t* qh = b + offsetof(BlockQ6_K, qh);
  const std::uint8_t* scales = b + offsetof(BlockQ6_K, scales);
  for (int h = 0; h < 2; ++h)
    for (int k = 0; k < 4; ++k)
      for (int half = 0; half < 2; ++half) {
        // (d * sc) first, then * q: the grouping decides the sign of zero (spec §6.5).
        const float dl = d * static_cast<float>(i8_of(scales[8 * h + 2 * k + half]));
        const std::uint8_t* lq = ql + 64 * h + ((k % 2 == 1) ? 32 : 0) + 16 * half;
        const std::uint8_t* hq = qh + 32 * h + 16 * half;
        float* out = y + 128 * h + 32 * k + 16 * half;
        for (int l = 0; l < 16; ++l) {
          const int lo = (k < 2) ? (lq[l] & 15) : (lq[l] >> 4);
          const int hi = (hq[l] >> (2 * k)) & 3;
          out[l] = dl * static_cast<float>(lo + 16 * hi - 32);
        }
      }
}

// q8_k's scale is a full float32 and its `bsums` are never read (spec §6.6).
void q8_k_block(const std::uint8_t* b, float* y) {
  const float d = std::bit_cast<float>(u32_at(b + offsetof(BlockQ8_K, d)));
  const std::uint8_t* qs = b + offsetof(BlockQ8_K, qs);
  for (int j = 0; j < 256; ++j) y[j] = d * static_cast<float>(i8_of(qs[j]));
}

}  // namespace

void decode_q2_k(const std::uint8_t* s, std::size_t n, float* y) { decode_run<FormatId::q2_k, q2_k_block>(s, n, y); }
void decode_q3_k(const std::uint8_t* s, std::size_t n, float* y) { decode_run<FormatId::q3_k, q3_k_block>(s, n, y); }
void decode_q4_k(const std::uint8_t* s, std::size_t n, float* y) { decode_run<FormatId::q4_k, q4_k_block>(s, n, y); }
void decode_q5_k(const std::uint8_t* s, std::size_t n, float* y) { decode_run<FormatId::q5_k, q5_k_block>(s, n, y); }
void decode_q6_k(const std::uint8_t* s, std::size_t n, float* y) { decode_run<FormatId::q6_k, q6_k_block>(s, n, y); }
void decode_q8_k(const std::uint8_t* s, std::size_t n, float* y) { decode_run<FormatId::q8_k, q8_k_block>(s, n, y); }

}  // namespace onnxq::reference
