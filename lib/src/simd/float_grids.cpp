// Compiled without ISA flags (any CPU runs the table construction).
#include "simd/float_grids.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "formats/codebooks.hpp"

namespace onnxq::simd {
namespace {

// Byte k of entry e (little-endian), as float32, for every entry.
template <class Table>
std::vector<float> expand(const Table& grid, int bytes_per_entry) {
  std::vector<float> out;
  out.reserve(grid.size() * bytes_per_entry);
  for (const auto entry : grid)
    for (int k = 0; k < bytes_per_entry; ++k) out.push_back(static_cast<float>((entry >> (8 * k)) & 0xFF));
  return out;
}

// Lane k of entry e is -0.0f where bit k of bits(e) is set, else +0.0f.
template <class Bits>
std::vector<float> sign_masks(int entries, Bits bits) {
  std::vector<float> out;
  out.reserve(static_cast<std::size_t>(entries) * 8);
  for (int e = 0; e < entries; ++e)
    for (int k = 0; k < 8; ++k) out.push_back(((bits(e) >> k) & 1) ? -0.0f : 0.0f);
  return out;
}

}  // namespace

const FloatGrids& float_grids() {
  static const std::vector<float> iq2xxs = expand(formats::kIq2xxsGrid, 8), iq2xs = expand(formats::kIq2xsGrid, 8),
                                  iq2s = expand(formats::kIq2sGrid, 8), iq3xxs = expand(formats::kIq3xxsGrid, 4),
                                  iq3s = expand(formats::kIq3sGrid, 4);
  static const std::vector<float> sign_bytes = sign_masks(256, [](int b) { return static_cast<unsigned>(b); }),
                                  sign_codes =
                                      sign_masks(128, [](int s) { return unsigned{formats::kKsignsIq2xs[s]}; });
  static const FloatGrids grids{iq2xxs.data(), iq2xs.data(),      iq2s.data(),      iq3xxs.data(),
                                iq3s.data(),   sign_bytes.data(), sign_codes.data()};
  return grids;
}

const float* ue4m3_half_scales() {
  static const std::vector<float> table = [] {
    std::vector<float> t(256);
    for (unsigned x = 0; x < 256; ++x) {
      const int E = (x >> 3) & 15, M = x & 7;  // bit 7 is ignored
      if (x == 0x00 || x == 0x7F)
        t[x] = 0.0f;
      else if (E == 0)
        t[x] = static_cast<float>(M) * 0x1p-10f;
      else
        t[x] = std::ldexp(static_cast<float>(8 + M), E - 11);  // exact: a small integer times 2^k
    }
    return t;
  }();
  return table.data();
}

}  // namespace onnxq::simd
