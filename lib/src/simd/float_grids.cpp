// Compiled without ISA flags (any CPU runs the table construction).
#include "simd/float_grids.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

#include "dequant/codebooks.hpp"

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

}  // namespace

const FloatGrids& float_grids() {
  static const std::vector<float> iq2xxs = expand(dequant::kIq2xxsGrid, 8), iq2xs = expand(dequant::kIq2xsGrid, 8),
                                  iq2s = expand(dequant::kIq2sGrid, 8), iq3xxs = expand(dequant::kIq3xxsGrid, 4),
                                  iq3s = expand(dequant::kIq3sGrid, 4);
  static const FloatGrids grids{iq2xxs.data(), iq2xs.data(), iq2s.data(), iq3xxs.data(), iq3s.data()};
  return grids;
}

}  // namespace onnxq::simd
