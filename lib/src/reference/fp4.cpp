// FP4 formats: mxfp4 (E8M0 scale) and nvfp4 (four UE4M3 scales) (spec §9).
// kvalues_fp4 holds doubled E2M1 values, so both scale conversions return half the scale.
#include <bit>
#include <cstddef>

#include "formats/block_layouts.hpp"
#include "formats/codebooks.hpp"
#include "reference/block_io.hpp"
#include "reference/decoders.hpp"

namespace onnxq::reference {

using namespace formats;  // the layout structs, FormatId and the codebooks

namespace {

// S(e) = 2^(e-128) (spec §3.3): e = 0, 1 are float32 subnormals; e = 255 is 2^127, not NaN.
inline float e8m0_half_scale(std::uint8_t e) {
  if (e == 0) return std::bit_cast<float>(0x00200000u);
  if (e == 1) return std::bit_cast<float>(0x00400000u);
  return std::bit_cast<float>(static_cast<std::uint32_t>(e - 1) << 23);
}

// T(x) (spec §3.4): bit 7 ignored; 0x00 and 0x7F give 0, but 0xFF gives 240.
inline float ue4m3_half_scale(std::uint8_t x) {
  if (x == 0x00 || x == 0x7F) return 0.0f;
  const int E = (x >> 3) & 15;
  const int M = x & 7;
  if (E == 0) return static_cast<float>(M) * 0x1p-10f;
  return static_cast<float>(8 + M) * std::bit_cast<float>(static_cast<std::uint32_t>(E - 11 + 127) << 23);
}

void mxfp4_block(const std::uint8_t* b, float* y) {
  const float S = e8m0_half_scale(b[offsetof(BlockMxfp4, e)]);
  const std::uint8_t* qs = b + offsetof(BlockMxfp4, qs);
  for (int j = 0; j < 16; ++j) {
    y[j] = static_cast<float>(kKvaluesFp4[qs[j] & 15]) * S;
    y[j + 16] = static_cast<float>(kKvaluesFp4[qs[j] >> 4]) * S;
  }
}

void nvfp4_block(const std::uint8_t* b, float* y) {
  const std::uint8_t* scales = b + offsetof(BlockNvfp4, d);
  const std::uint8_t* qs = b + offsetof(BlockNvfp4, qs);
  for (int s = 0; s < 4; ++s) {
    const float T = ue4m3_half_scale(scales[s]);
    for (int i = 0; i < 8; ++i) {
      const std::uint8_t byte = qs[8 * s + i];
      y[16 * s + i] = static_cast<float>(kKvaluesFp4[byte & 15]) * T;
      y[16 * s + i + 8] = static_cast<float>(kKvaluesFp4[byte >> 4]) * T;
    }
  }
}

}  // namespace

void decode_mxfp4(const std::uint8_t* s, std::size_t n, float* y) { decode_run<FormatId::mxfp4, mxfp4_block>(s, n, y); }
void decode_nvfp4(const std::uint8_t* s, std::size_t n, float* y) { decode_run<FormatId::nvfp4, nvfp4_block>(s, n, y); }

}  // namespace onnxq::reference
