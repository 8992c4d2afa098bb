// Compiled without ISA flags (any CPU runs the table construction).
#include "simd/float_grids.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
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

// A grid's magnitude codes (see GridCodes) and its 16-lane magnitude table.
template <std::size_t N>
struct CodedGrid {
  alignas(64) std::array<std::uint16_t, N> codes;
  alignas(64) std::array<float, 16> magnitudes;
  alignas(64) std::array<float, 16> negated;
  alignas(64) std::array<std::uint8_t, 2 * N> code_bytes;  // every code's low byte, then every high byte
};

// Byte k of every entry, sorted, without repeats.
template <class Table>
std::vector<unsigned> distinct_bytes(const Table& grid, int bytes_per_entry) {
  std::vector<unsigned> values;
  for (const auto entry : grid)
    for (int k = 0; k < bytes_per_entry; ++k) values.push_back(static_cast<unsigned>((entry >> (8 * k)) & 0xFF));
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

// slot(k) is the bit position of element k's code in an entry's uint16; `code_count` codes.
template <class Table, class Slot>
auto code_grid(const Table& grid, int bytes_per_entry, unsigned code_count, Slot slot) {
  const std::vector<unsigned> values = distinct_bytes(grid, bytes_per_entry);
  if (values.size() > code_count) std::abort();  // the codebooks are fixed: cannot happen
  CodedGrid<std::tuple_size_v<Table>> out{};
  for (std::size_t e = 0; e < grid.size(); ++e)
    for (int k = 0; k < bytes_per_entry; ++k) {
      const unsigned byte = static_cast<unsigned>((grid[e] >> (8 * k)) & 0xFF);
      const auto code = static_cast<unsigned>(std::find(values.begin(), values.end(), byte) - values.begin());
      out.codes[e] = static_cast<std::uint16_t>(out.codes[e] | code << slot(k));
    }
  for (std::size_t e = 0; e < grid.size(); ++e) {
    out.code_bytes[e] = static_cast<std::uint8_t>(out.codes[e]);
    out.code_bytes[grid.size() + e] = static_cast<std::uint8_t>(out.codes[e] >> 8);
  }
  for (unsigned j = 0; j < 16; ++j) {
    const unsigned c = j % code_count;
    out.magnitudes[j] = c < values.size() ? static_cast<float>(values[c]) : 0.0f;
    out.negated[j] = (j / code_count) % 2 ? -0.0f : 0.0f;
  }
  return out;
}

int iq2_slot(int k) { return 2 * k; }
int iq3_slot(int k) { return 4 * (k / 2) + 8 * (k % 2); }  // elements 0, 2 low byte; 1, 3 high byte

}  // namespace

const GridCodes& grid_codes() {
  static const auto iq2xxs = code_grid(formats::kIq2xxsGrid, 8, 4, iq2_slot);
  static const auto iq2xs = code_grid(formats::kIq2xsGrid, 8, 4, iq2_slot);
  static const auto iq2s = code_grid(formats::kIq2sGrid, 8, 4, iq2_slot);
  static const auto iq3xxs = code_grid(formats::kIq3xxsGrid, 4, 8, iq3_slot);
  static const auto iq3s = code_grid(formats::kIq3sGrid, 4, 8, iq3_slot);
  static const GridCodes codes{
      {iq2xxs.codes.data(), iq2xxs.magnitudes.data(), iq2xxs.negated.data(), iq2xxs.code_bytes.data()},
      {iq2xs.codes.data(), iq2xs.magnitudes.data(), iq2xs.negated.data(), iq2xs.code_bytes.data()},
      {iq2s.codes.data(), iq2s.magnitudes.data(), iq2s.negated.data(), iq2s.code_bytes.data()},
      {iq3xxs.codes.data(), iq3xxs.magnitudes.data(), iq3xxs.negated.data(), iq3xxs.code_bytes.data()},
      {iq3s.codes.data(), iq3s.magnitudes.data(), iq3s.negated.data(), iq3s.code_bytes.data()}};
  return codes;
}

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
