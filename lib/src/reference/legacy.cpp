// 32-element formats: q4_0, q4_1, q5_0, q5_1, q8_0, q8_1 (spec §5).
#include <cstddef>

#include "formats/block_layouts.hpp"
#include "reference/block_io.hpp"
#include "reference/decoders.hpp"

namespace onnxq::reference {

using namespace formats;  // the layout structs and FormatId

namespace {

// Elements 0..15 sit in the low nibbles of the 16 code bytes, 16..31 in the high nibbles.
void q4_0_block(const std::uint8_t* b, float* y) {
  const float d = half_at(b + offsetof(BlockQ4_0, d));
  const std::uint8_t* qs = b + offsetof(BlockQ4_0, qs);
  for (int j = 0; j < 16; ++j) {
    y[j] = static_cast<float>((qs[j] & 15) - 8) * d;
    y[j + 16] = static_cast<float>((qs[j] >> 4) - 8) * d;
  }
}

void q4_1_block(const std::uint8_t* b, float* y) {
  const float d = half_at(b + offsetof(BlockQ4_1, d));
  const float m = half_at(b + offsetof(BlockQ4_1, m));
  const std::uint8_t* qs = b + offsetof(BlockQ4_1, qs);
  for (int j = 0; j < 16; ++j) {  // the product is exact; the one rounding is the + m
    y[j] = (static_cast<float>(qs[j] & 15) * d) + m;
    y[j + 16] = (static_cast<float>(qs[j] >> 4) * d) + m;
  }
}

void q5_0_block(const std::uint8_t* b, float* y) {
  const float d = half_at(b + offsetof(BlockQ5_0, d));
  const std::uint32_t qh = u32_at(b + offsetof(BlockQ5_0, qh));
  const std::uint8_t* qs = b + offsetof(BlockQ5_0, qs);
  for (int j = 0; j < 16; ++j) {  // qh bit j is bit 4 of element j
    const int lo = (qs[j] & 15) + 16 * static_cast<int>((qh >> j) & 1);
    const int hi = (qs[j] >> 4) + 16 * static_cast<int>((qh >> (j + 16)) & 1);
    y[j] = static_cast<float>(lo - 16) * d;
    y[j + 16] = static_cast<float>(hi - 16) * d;
  }
}

void q5_1_block(const std::uint8_t* b, float* y) {
  const float d = half_at(b + offsetof(BlockQ5_1, d));
  const float m = half_at(b + offsetof(BlockQ5_1, m));
  const std::uint32_t qh = u32_at(b + offsetof(BlockQ5_1, qh));
  const std::uint8_t* qs = b + offsetof(BlockQ5_1, qs);
  for (int j = 0; j < 16; ++j) {
    const int lo = (qs[j] & 15) + 16 * static_cast<int>((qh >> j) & 1);
    const int hi = (qs[j] >> 4) + 16 * static_cast<int>((qh >> (j + 16)) & 1);
    y[j] = (static_cast<float>(lo) * d) + m;
    y[j + 16] = (static_cast<float>(hi) * d) + m;
  }
}

void q8_0_block(const std::uint8_t* b, float* y) {
  const float d = half_at(b + offsetof(BlockQ8_0, d));
  const std::uint8_t* qs = b + offsetof(BlockQ8_0, qs);
  for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(i8_of(qs[j])) * d;
}

// q8_1's `s` (a block sum for ggml's dot products) is never read (spec §5.6).
void q8_1_block(const std::uint8_t* b, float* y) {
  const float d = half_at(b + offsetof(BlockQ8_1, d));
  const std::uint8_t* qs = b + offsetof(BlockQ8_1, qs);
  for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(i8_of(qs[j])) * d;
}

}  // namespace

void decode_q4_0(const std::uint8_t* s, std::size_t n, float* y) { decode_run<FormatId::q4_0, q4_0_block>(s, n, y); }
void decode_q4_1(const std::uint8_t* s, std::size_t n, float* y) { decode_run<FormatId::q4_1, q4_1_block>(s, n, y); }
void decode_q5_0(const std::uint8_t* s, std::size_t n, float* y) { decode_run<FormatId::q5_0, q5_0_block>(s, n, y); }
void decode_q5_1(const std::uint8_t* s, std::size_t n, float* y) { decode_run<FormatId::q5_1, q5_1_block>(s, n, y); }
void decode_q8_0(const std::uint8_t* s, std::size_t n, float* y) { decode_run<FormatId::q8_0, q8_0_block>(s, n, y); }
void decode_q8_1(const std::uint8_t* s, std::size_t n, float* y) { decode_run<FormatId::q8_1, q8_1_block>(s, n, y); }

}  // namespace onnxq::reference
