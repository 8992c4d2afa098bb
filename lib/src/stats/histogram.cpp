#include "onnxq/stats/histogram.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "onnxq/core/error.hpp"
#include "onnxq/core/parallel.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/stats/block_scales.hpp"

namespace onnxq {
namespace {

struct Chunks {
  std::uint64_t blocks_per_chunk, total_blocks, count;
};

Chunks plan(const BlockSource& src) {
  const BlockFormat& format = src.format();
  Chunks c;
  c.blocks_per_chunk = std::max<std::uint64_t>(1, kChunkElements / format.block_elements);
  c.total_blocks = src.block_count();
  c.count = (c.total_blocks + c.blocks_per_chunk - 1) / c.blocks_per_chunk;
  return c;
}

unsigned team_size(int threads, std::uint64_t chunks) {
  return static_cast<unsigned>(std::clamp<std::uint64_t>(chunks, 1, resolve_threads(threads)));
}

// Quarter-octave bins from 2^-160 to 2^160: wider than any scale encoding's range (float32's
// smallest subnormal is 2^-149).
constexpr int kBinsPerOctave = 4;
constexpr int kLowestOctave = -160;
constexpr int kFineBins = 320 * kBinsPerOctave;
static_assert(kBinsPerOctave == 4, "quarter_octave counts quarters");

// floor(4 log2 d) for d > 0, from frexp (exact, and no libm call: the static build takes libm's
// few plain functions only).
int quarter_octave(double d) {
  int e = 0;
  const double m = std::frexp(d, &e);  // d = m 2^e, m in [0.5, 1)
  constexpr double kQuarter[] = {0.59460355750136054, 0.70710678118654752, 0.84089641525371454};  // 2^-0.75 .. 2^-0.25
  int q = 0;
  for (const double step : kQuarter) q += m >= step;
  return 4 * (e - 1) + q;
}

}  // namespace

Histogram value_histogram(const BlockSource& src, std::uint64_t element_count, double lo, double hi, unsigned bins,
                          int threads, const std::function<void(std::uint64_t)>& on_chunk) {
  const BlockFormat& format = src.format();
  const Chunks c = plan(src);
  if (c.total_blocks * format.block_elements != element_count)
    invalid_argument("value_histogram: " + std::to_string(element_count) + " elements are not the source's " +
                     std::to_string(c.total_blocks) + " blocks of " + std::to_string(format.block_elements));
  Histogram h;
  h.lo = lo;
  h.hi = hi;
  bins = lo < hi ? std::max(1u, bins) : 1u;
  std::vector<std::vector<std::uint64_t>> partial(c.count, std::vector<std::uint64_t>(bins));
  const unsigned team = team_size(threads, c.count);
  struct Scratch {
    std::vector<float> values;
    std::vector<std::byte> read;
  };
  std::vector<Scratch> scratch(team);
  const double scale = lo < hi ? bins / (hi - lo) : 0.0;
  parallel_chunks(team, c.count, [&](unsigned worker, std::uint64_t chunk) {
    Scratch& own = scratch[worker];
    const std::uint64_t first = chunk * c.blocks_per_chunk;
    const std::uint64_t n = std::min(c.blocks_per_chunk, c.total_blocks - first);
    own.values.resize(n * format.block_elements);
    const auto bytes = src.blocks(first, n, own.read);
    decode_blocks(format, bytes, 0, n, DType::Float, own.values.data(), 1);
    std::vector<std::uint64_t>& counts = partial[chunk];
    for (const float v : own.values) {
      if (!(v >= lo && v <= hi)) continue;  // also drops NaN
      const auto bin = static_cast<std::uint64_t>((v - lo) * scale);
      ++counts[std::min<std::uint64_t>(bin, bins - 1)];
    }
    if (on_chunk) on_chunk(n * format.block_bytes);
  });
  src.check();
  h.counts.assign(bins, 0);
  for (const auto& counts : partial)
    for (unsigned i = 0; i < bins; ++i) h.counts[i] += counts[i];
  return h;
}

ScaleHistogram scale_histogram(const BlockSource& src, int threads) {
  ScaleHistogram result;
  const BlockFormat& format = src.format();
  const BlockScaleLayout* layout = block_scale_layout(format);
  if (!layout || format.block_elements == 1) return result;  // plain types have no scales
  const Chunks c = plan(src);
  std::vector<std::vector<std::uint64_t>> partial(c.count);
  std::vector<std::uint64_t> skipped(c.count);
  const unsigned team = team_size(threads, c.count);
  std::vector<std::vector<std::byte>> scratch(team);
  parallel_chunks(team, c.count, [&](unsigned worker, std::uint64_t chunk) {
    const std::uint64_t first = chunk * c.blocks_per_chunk;
    const std::uint64_t n = std::min(c.blocks_per_chunk, c.total_blocks - first);
    const auto bytes = src.blocks(first, n, scratch[worker]);
    std::vector<std::uint64_t>& fine = partial[chunk];
    fine.assign(kFineBins, 0);
    const auto* block = reinterpret_cast<const std::uint8_t*>(bytes.data());
    for (std::uint64_t b = 0; b < n; ++b, block += format.block_bytes) {
      const double d = std::fabs(scale_value(layout->encoding, block + layout->offsets[0]));
      if (!(d > 0) || !std::isfinite(d)) {
        ++skipped[chunk];
        continue;
      }
      ++fine[static_cast<std::size_t>(
          std::clamp(quarter_octave(d) - kLowestOctave * kBinsPerOctave, 0, kFineBins - 1))];
    }
  });
  src.check();
  std::vector<std::uint64_t> fine(kFineBins);
  for (std::uint64_t chunk = 0; chunk < c.count; ++chunk) {
    for (int i = 0; i < kFineBins; ++i) fine[i] += partial[chunk][i];
    result.zero_or_nonfinite += skipped[chunk];
  }
  result.blocks = c.total_blocks;
  const auto used = [](std::uint64_t n) { return n != 0; };
  const auto first = std::find_if(fine.begin(), fine.end(), used);
  if (first == fine.end()) return result;
  const auto last = std::find_if(fine.rbegin(), fine.rend(), used).base();
  const auto offset = first - fine.begin();
  result.log2_abs.lo = kLowestOctave + static_cast<double>(offset) / kBinsPerOctave;
  result.log2_abs.hi = kLowestOctave + static_cast<double>(last - fine.begin()) / kBinsPerOctave;
  result.log2_abs.counts.assign(first, last);
  return result;
}

}  // namespace onnxq
