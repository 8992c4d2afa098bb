// Development-time generator of lib/src/quantize/iq2_maps.cpp: the grid maps of ggml's IQ quantizers
// (iq2xs_init_impl in ggml's src/ggml-quants.c) for the IQ2_XXS, IQ2_XS, IQ1_S/IQ1_M and IQ2_S grids,
// computed from the decoders' codebooks (lib/src/formats/codebooks.cpp) so that a fresh clone can
// regenerate them. It is a host tool because the neighbour search (6561 keys x up to 2048 points,
// sorted) is too slow in plain Python. Build and run from the repository root:
//
//   g++ -std=c++20 -O2 -Ilib/src scripts/gen_iq_maps.cpp lib/src/formats/codebooks.cpp -o /tmp/gen_iq_maps
//   /tmp/gen_iq_maps > lib/src/quantize/iq2_maps.cpp
//
// What is kept: only the 3^8 keys whose levels are all in 0..2 (the quantizers clamp to 0..2; ggml
// also builds lists for keys with a level 3, which nothing reads). Each neighbour list holds what
// ggml's holds, in ggml's order: the grid points within the `nwant` smallest distinct squared
// distances to the key, sorted by (distance, grid index).
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "formats/codebooks.hpp"

namespace {

constexpr int kKeyCount = 6561;  // 3^8

struct GridSpec {
  const char* name;  // C++ name stem
  const char* what;
  const std::uint64_t* codebook;
  int grid_size;
  int nwant;
  bool signed_levels;  // IQ1_S grid bytes are -1/0/1; the IQ2 grids' are 0x08/0x19/0x2b
};

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "gen_iq_maps: %s\n", what);
  std::exit(1);
}

int level_of(std::uint8_t byte, bool signed_levels) {
  if (signed_levels) {
    switch (static_cast<std::int8_t>(byte)) {
      case -1: return 0;
      case 0: return 1;
      case 1: return 2;
    }
  } else {
    switch (byte) {
      case 0x08: return 0;
      case 0x19: return 1;
      case 0x2b: return 2;
    }
  }
  fail("unexpected codebook byte");
}

// Two characters per value from the 64 characters '0'..'o' (no '"' or ')', safe in a raw string).
void put_entry(std::string& out, int v) {
  if (v < 0 || v >= 4096) fail("value does not fit two characters");
  out += static_cast<char>('0' + v / 64);
  out += static_cast<char>('0' + v % 64);
}

void emit(const GridSpec& g) {
  // Levels of each grid point; its 2-bit key (ggml's kgrid_* tables) and base-3 key.
  std::vector<std::array<int, 8>> levels(g.grid_size);
  std::vector<int> key2(g.grid_size);
  std::vector<int> on_grid(kKeyCount, -1);
  for (int j = 0; j < g.grid_size; ++j) {
    int k2 = 0, k3 = 0, p3 = 1;
    for (int k = 0; k < 8; ++k) {
      const int l = level_of(static_cast<std::uint8_t>(g.codebook[j] >> (8 * k)), g.signed_levels);
      levels[j][k] = l;
      k2 |= l << (2 * k);
      k3 += l * p3;
      p3 *= 3;
    }
    key2[j] = k2;
    if (on_grid[k3] >= 0) fail("duplicate grid point");
    on_grid[k3] = j;
  }

  std::string lists;
  std::vector<std::pair<int, int>> dist(g.grid_size);
  std::size_t total = 0, longest = 0;
  for (int key = 0; key < kKeyCount; ++key) {
    if (on_grid[key] >= 0) continue;
    int l[8];
    for (int k = 0, r = key; k < 8; ++k, r /= 3) l[k] = r % 3;
    for (int j = 0; j < g.grid_size; ++j) {
      int d2 = 0;
      for (int k = 0; k < 8; ++k) {
        const int d = 2 * (levels[j][k] - l[k]);  // ggml measures in 2l+1 units
        d2 += d * d;
      }
      dist[j] = {d2, j};
    }
    std::sort(dist.begin(), dist.end());
    std::vector<int> chosen;
    int shells = 1, d2 = dist[0].first;
    for (const auto& [d, j] : dist) {
      if (d > d2) {
        if (shells == g.nwant) break;
        d2 = d;
        ++shells;
      }
      chosen.push_back(j);
    }
    put_entry(lists, static_cast<int>(chosen.size()));
    for (int j : chosen) put_entry(lists, j);
    total += 1 + chosen.size();
    longest = std::max(longest, chosen.size());
  }

  std::printf("// %s: %d grid points, %zu list entries (counts included), longest list %zu.\n", g.what, g.grid_size,
              total, longest);
  std::printf("constexpr std::uint16_t k%sKeys[%d] = {", g.name, g.grid_size);
  for (int j = 0; j < g.grid_size; ++j) std::printf("%s%d,", j % 16 ? " " : "\n    ", key2[j]);
  std::printf("\n};\n");
  std::printf("constexpr char k%sLists[] =", g.name);
  constexpr std::size_t kLine = 110;
  for (std::size_t i = 0; i < lists.size(); i += kLine)
    std::printf("\n    R\"(%s)\"", lists.substr(i, kLine).c_str());
  std::printf(";\n");
  std::printf("static_assert(sizeof(k%sLists) == 2 * %zu + 1);\n", g.name, total);
  std::printf("constexpr auto k%sGrid = expand_grid(k%sKeys);\n", g.name, g.name);
  std::printf("constexpr auto k%sMap = build_map(k%sKeys, k%sLists);\n\n", g.name, g.name, g.name);
}

}  // namespace

int main() {
  using namespace onnxq::formats;
  const GridSpec grids[] = {
      {"Iq2xxs", "IQ2_XXS", kIq2xxsGrid.data(), 256, 2, false},
      {"Iq2xs", "IQ2_XS", kIq2xsGrid.data(), 512, 2, false},
      {"Iq1s", "IQ1_S / IQ1_M", kIq1sGrid.data(), 2048, 3, true},
      {"Iq2s", "IQ2_S", kIq2sGrid.data(), 1024, 1, false},
  };
  std::printf(R"(// GENERATED by scripts/gen_iq_maps.cpp from formats/codebooks.cpp. Do not edit.
// clang-format off
#include <array>
#include <cstdint>

#include "quantize/iq2_maps.hpp"

namespace onnxq::quantize {
namespace {

// A grid point's bytes 2*l_k + 1 from its 2-bit key (sum l_k << 2k).
template <std::size_t N>
constexpr std::array<std::uint64_t, N> expand_grid(const std::uint16_t (&keys)[N]) {
  std::array<std::uint64_t, N> grid{};
  for (std::size_t j = 0; j < N; ++j)
    for (int k = 0; k < 8; ++k) grid[j] |= std::uint64_t(2 * ((keys[j] >> (2 * k)) & 3) + 1) << (8 * k);
  return grid;
}

// map[key3]: the grid index, or -(offset of the key's list in entries + 1); the lists follow the
// off-grid keys in ascending order, each a count then that many indices.
template <std::size_t N>
constexpr std::array<std::int32_t, kIqKeyCount> build_map(const std::uint16_t (&keys)[N], const char* lists) {
  std::array<std::int32_t, kIqKeyCount> map{};
  for (auto& m : map) m = -1;
  for (std::size_t j = 0; j < N; ++j) {
    int key3 = 0;
    for (int k = 7; k >= 0; --k) key3 = 3 * key3 + ((keys[j] >> (2 * k)) & 3);
    map[key3] = static_cast<std::int32_t>(j);
  }
  std::int32_t offset = 0;
  for (auto& m : map) {
    if (m >= 0) continue;
    m = -(offset + 1);
    offset += 1 + (lists[2 * offset] - '0') * 64 + (lists[2 * offset + 1] - '0');
  }
  return map;
}

)");
  for (const auto& g : grids) emit(g);
  std::printf(R"(}  // namespace

const IqGridMaps kIq2xxsMaps = {kIq2xxsGrid.data(), kIq2xxsMap.data(), kIq2xxsLists, 256};
const IqGridMaps kIq2xsMaps = {kIq2xsGrid.data(), kIq2xsMap.data(), kIq2xsLists, 512};
const IqGridMaps kIq1sMaps = {kIq1sGrid.data(), kIq1sMap.data(), kIq1sLists, 2048};
const IqGridMaps kIq2sMaps = {kIq2sGrid.data(), kIq2sMap.data(), kIq2sLists, 1024};

}  // namespace onnxq::quantize
)");
  return 0;
}
