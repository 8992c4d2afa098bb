// Histograms of a tensor's decoded values and of its blocks' scales, for pictures (onnxq
// report). Chunks are counted apart and added in chunk order, so a result never depends on the
// number of threads.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "onnxq/formats/block_source.hpp"

namespace onnxq {

// counts[i] holds the values in [lo + i * w, lo + (i + 1) * w), w = (hi - lo) / counts.size(); the
// last bin also holds hi. Values outside [lo, hi] and values that are not finite are not counted.
struct Histogram {
  double lo = 0, hi = 0;
  std::vector<std::uint64_t> counts;
};

// The finite values of `src` (element_count of them) in `bins` bins over [lo, hi] (lo == hi: one bin).
Histogram value_histogram(const BlockSource& src, std::uint64_t element_count, double lo, double hi, unsigned bins,
                          int threads = 0, const std::function<void(std::uint64_t)>& on_chunk = {});

// log2 |d| of each block's first scale field (block_scales.hpp), for the blocks whose d is finite
// and not zero, in bins a quarter of an octave wide over the octaves they span; `zero_or_nonfinite`
// counts the rest. Empty for a type without scale fields.
struct ScaleHistogram {
  Histogram log2_abs;
  std::uint64_t blocks = 0;
  std::uint64_t zero_or_nonfinite = 0;
};
ScaleHistogram scale_histogram(const BlockSource& src, int threads = 0);

}  // namespace onnxq
