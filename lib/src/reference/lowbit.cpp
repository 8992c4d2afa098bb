// 1- and 2-bit formats: q1_0 and q2_0 (spec §10). Consecutive elements share a byte.
#include <cstddef>

#include "formats/block_layouts.hpp"
#include "reference/block_io.hpp"
#include "reference/decoders.hpp"

namespace onnxq::reference {

using namespace formats;  // the layout structs and FormatId

namespace {

void q1_0_block(const std::uint8_t* b, float* y) {
  const float d = half_at(b + offsetof(BlockQ1_0, d));
  const std::uint8_t* qs = b + offsetof(BlockQ1_0, qs);
  for (int j = 0; j < 128; ++j) y[j] = ((qs[j / 8] >> (j % 8)) & 1) ? d : -d;  // -d is an exact sign flip
}

void q2_0_block(const std::uint8_t* b, float* y) {
  const float d = half_at(b + offsetof(BlockQ2_0, d));
  const std::uint8_t* qs = b + offsetof(BlockQ2_0, qs);
  for (int j = 0; j < 64; ++j) {
    const int q = (qs[j / 4] >> (2 * (j % 4))) & 3;
    y[j] = static_cast<float>(q - 1) * d;
  }
}

}  // namespace

void decode_q1_0(const std::uint8_t* s, std::size_t n, float* y) { decode_run<FormatId::q1_0, q1_0_block>(s, n, y); }
void decode_q2_0(const std::uint8_t* s, std::size_t n, float* y) { decode_run<FormatId::q2_0, q2_0_block>(s, n, y); }

}  // namespace onnxq::reference
