// Summary statistics of decoded values, computed chunk by chunk and merged in a fixed
// order so that a result never depends on the number of threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "onnxq/core/parallel.hpp"
#include "onnxq/core/tensor.hpp"
#include "onnxq/formats/block_source.hpp"
#include "onnxq/formats/format.hpp"
#include "onnxq/stats/block_scales.hpp"

namespace onnxq {

// min/max/mean/variance are over the finite values only; NaN and ±Inf are counted.
// mean and m2 use double accumulators: a chunk is summed, centred on its own mean (two
// passes over cache-resident data), and chunks are combined with Chan's parallel formula.
struct ValueStats {
  std::uint64_t count = 0;  // all values
  std::uint64_t finite = 0;
  std::uint64_t zeros = 0;  // +0 and -0
  std::uint64_t nan = 0;
  std::uint64_t inf = 0;
  double min = 0, max = 0;  // meaningful when finite > 0
  double mean = 0;
  double m2 = 0;  // sum of squared deviations from the mean

  void add(std::span<const float> values);
  void merge(const ValueStats& other);
  double variance() const { return finite ? m2 / static_cast<double>(finite) : 0.0; }  // population (ddof = 0)
  double stddev() const;
};

struct TensorStats {
  ValueStats values;
  ScaleCounts scales;
  std::uint64_t blocks = 0;
};

// One tensor's statistics with what a report shows of the tensor.
struct NamedTensorStats {
  std::string name;
  std::string type;           // the format's GGUF name
  Shape shape;                // ONNX order
  bool block_format = false;  // plain types have no scales
  TensorStats stats;
};

// The rows as `onnxq stats --json` prints them: a JSON array (2-space indent, no final newline),
// min/max/mean/std null for a tensor without finite values.
std::string tensor_stats_json(const std::vector<NamedTensorStats>& rows);

// Elements per chunk: the library's chunk (onnxq/core/parallel.hpp), fixed so results do not
// depend on threads.
inline constexpr std::uint64_t kStatsChunkElements = kChunkElements;

// Decodes `src` (element_count values) to float32 in chunks and summarizes it, never holding
// more than one chunk per thread. threads == 0: all cores. `on_chunk(bytes)` is called after
// each chunk with its input bytes, from any thread.
TensorStats compute_tensor_stats(const BlockSource& src, std::uint64_t element_count, int threads = 0,
                                 const std::function<void(std::uint64_t)>& on_chunk = {});
// The same over packed little-endian bytes in memory, which must hold exactly element_count values.
TensorStats compute_tensor_stats(const BlockFormat& format, std::span<const std::byte> src, std::uint64_t element_count,
                                 int threads = 0, const std::function<void(std::uint64_t)>& on_chunk = {});

// Differences between two decodings of the same number of values (float32).
struct DifferenceStats {
  std::uint64_t count = 0;
  std::uint64_t differing = 0;  // values that are not equal (NaN == NaN counts as equal)
  std::uint64_t nonfinite = 0;  // pairs whose difference is not finite (excluded below)
  double max_abs = 0;
  double sum_sq = 0;    // of the finite differences
  double sum_sq_b = 0;  // of b's values, where the difference is finite: b's energy, for normalized_mse
  double rms() const;
  // sum((a - b)^2) / sum(b^2): the error relative to b (the reference); 0 when both are all zeros,
  // infinity when only b is.
  double normalized_mse() const;
};

DifferenceStats compare_tensors(const BlockSource& a, const BlockSource& b, std::uint64_t element_count,
                                int threads = 0, const std::function<void(std::uint64_t)>& on_chunk = {});
DifferenceStats compare_tensors(const BlockFormat& format_a, std::span<const std::byte> a, const BlockFormat& format_b,
                                std::span<const std::byte> b, std::uint64_t element_count, int threads = 0,
                                const std::function<void(std::uint64_t)>& on_chunk = {});

}  // namespace onnxq
