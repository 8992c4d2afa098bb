// The grid maps of ggml's "iq2 data" (iq2xs_init_impl in src/ggml-quants.c) for the four grids its
// IQ quantizers search: IQ2_XXS (256 points), IQ2_XS (512), IQ1_S / IQ1_M (2048, shared) and
// IQ2_S (1024). They are generated at development time by scripts/gen_iq_maps.cpp into
// iq2_maps.cpp (constant data, nothing is computed at run time).
//
// A point is 8 levels l_k in 0..2 (what the quantizers produce after clamping), keyed here in base 3:
//   key3 = sum_k l_k * 3^k   (k = 0..7; 0 .. kIqKeyCount - 1)
// (ggml keys its map by sum_k l_k << 2k and also builds lists for level 3, which nothing reads.)
#pragma once

#include <cstdint>

namespace onnxq::quantize {

inline constexpr int kIqKeyCount = 6561;  // 3^8

struct IqGridMaps {
  // grid_size points, byte k of each (as int8; byte 0 = least significant) = 2 * l_k + 1: ggml's
  // kgrid_q2xs, not the decoders' codebook values.
  const std::uint64_t* grid;
  // kIqKeyCount entries. map[key3] >= 0: the key is that grid point. map[key3] < 0: the key is off
  // the grid; read its neighbour list with neighbours_of.
  const std::int32_t* map;
  // The encoded neighbour lists (use neighbours_of): per off-grid key, every grid point within the
  // `nwant` smallest distinct squared distances to the key (ggml's nwant: 2 for IQ2_XXS / IQ2_XS,
  // 3 for IQ1_S / IQ1_M, 1 for IQ2_S), ordered by (distance, grid index): ggml's lists, entry for entry.
  const char* lists;
  int grid_size;
};

extern const IqGridMaps kIq2xxsMaps;  // IQ2_XXS
extern const IqGridMaps kIq2xsMaps;   // IQ2_XS
extern const IqGridMaps kIq1sMaps;    // IQ1_S and IQ1_M
extern const IqGridMaps kIq2sMaps;    // IQ2_S

// One key's neighbour list: size() grid indices, read with operator[] (0-based) in ggml's order.
// Entries are two characters of '0'..'o', 6 bits each (a compact source; decoding is two subtractions).
class NeighbourList {
 public:
  explicit NeighbourList(const char* at) : at_(at) {}
  int size() const { return entry(0); }
  int operator[](int j) const { return entry(j + 1); }

 private:
  int entry(int i) const { return (at_[2 * i] - '0') * 64 + (at_[2 * i + 1] - '0'); }
  const char* at_;
};

// The neighbour list of an off-grid key (maps.map[key3] < 0): ggml's `kneighbors_q2xs - kmap_q2xs[u] - 1`.
inline NeighbourList neighbours_of(const IqGridMaps& maps, int key3) {
  return NeighbourList(maps.lists + 2 * (-maps.map[key3] - 1));
}

}  // namespace onnxq::quantize
