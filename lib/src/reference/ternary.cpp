// Ternary formats: tq1_0 (base-3 fixed point) and tq2_0 (2-bit planes) (spec §8).
#include <cstddef>

#include "formats/block_layouts.hpp"
#include "reference/block_io.hpp"
#include "reference/decoders.hpp"

namespace onnxq::reference {

using namespace formats;  // the layout structs and FormatId

namespace {

// Digit n of a byte holding v/243 in 8-bit fixed point: multiply by 3^n mod 256 to drop the
// leading digits, then read the leading digit of the rest (spec §8.1). Always 0, 1 or 2.
inline int trit(std::uint8_t byte, int n) {
  static constexpr unsigned kPow3[5] = {1, 3, 9, 27, 81};
  const unsigned shifted = (byte * kPow3[n]) & 0xFF;
  return static_cast<int>((shifted * 3) >> 8);
}

void tq1_0_block(const std::uint8_t* b, float* y) {
  const float d = half_at(b + offsetof(BlockTq1_0, d));
  const std::uint8_t* qs = b + offsetof(BlockTq1_0, qs);
  const std::uint8_t* qh = b + offsetof(BlockTq1_0, qh);
  for (int j = 0; j < 160; ++j) y[j] = static_cast<float>(trit(qs[j % 32], j / 32) - 1) * d;
  for (int t = 0; t < 80; ++t) y[160 + t] = static_cast<float>(trit(qs[32 + t % 16], t / 16) - 1) * d;
  for (int t = 0; t < 16; ++t) y[240 + t] = static_cast<float>(trit(qh[t % 4], t / 4) - 1) * d;
}

void tq2_0_block(const std::uint8_t* b, float* y) {
  const float d = half_at(b + offsetof(BlockTq2_0, d));
  const std::uint8_t* qs = b + offsetof(BlockTq2_0, qs);
  // Two 32-byte halves of four bit-planes, as q2_k: element 128h + 32p + l is bits 2p of qs[32h + l].
  for (int h = 0; h < 2; ++h)
    for (int p = 0; p < 4; ++p)
      for (int l = 0; l < 32; ++l) {
        const int q = (qs[32 * h + l] >> (2 * p)) & 3;
        y[128 * h + 32 * p + l] =
            static_cast<float>(q - 1) * d;  // q = 3 gives 2d: never written by encoders, still defined
      }
}

}  // namespace

void decode_tq1_0(const std::uint8_t* s, std::size_t n, float* y) { decode_run<FormatId::tq1_0, tq1_0_block>(s, n, y); }
void decode_tq2_0(const std::uint8_t* s, std::size_t n, float* y) { decode_run<FormatId::tq2_0, tq2_0_block>(s, n, y); }

}  // namespace onnxq::reference
