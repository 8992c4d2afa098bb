// Chunked, multithreaded passes over decoded tensors. Each chunk's partial result lands
// in its own slot and the slots are merged in chunk order, so the answer is the same for
// any thread count.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "onnxq/core/error.hpp"
#include "onnxq/core/parallel.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/formats/byte_order.hpp"
#include "onnxq/stats/value_stats.hpp"

namespace onnxq {
namespace {

struct ChunkPlan {
  std::uint64_t chunk_blocks;
  std::uint64_t total_blocks;
  std::uint64_t chunks;
};

ChunkPlan plan_chunks(const BlockFormat& format, std::span<const std::byte> src, std::uint64_t element_count) {
  if (element_count % format.block_elements != 0)
    invalid_argument(std::to_string(element_count) + " elements are not a whole number of " +
                     std::string(format.gguf_name) + " blocks of " + std::to_string(format.block_elements));
  ChunkPlan plan;
  plan.total_blocks = element_count / format.block_elements;
  if (plan.total_blocks * format.block_bytes != src.size())
    invalid_argument(std::string(format.gguf_name) + " tensor of " + std::to_string(element_count) +
                     " elements needs " + std::to_string(plan.total_blocks * format.block_bytes) + " bytes, got " +
                     std::to_string(src.size()));
  plan.chunk_blocks = std::max<std::uint64_t>(1, kStatsChunkElements / format.block_elements);
  plan.chunks = (plan.total_blocks + plan.chunk_blocks - 1) / plan.chunk_blocks;
  return plan;
}

// No more threads than chunks: a one-chunk tensor runs on the calling thread alone.
unsigned thread_count(int threads, std::uint64_t chunks) {
  return static_cast<unsigned>(std::clamp<std::uint64_t>(chunks, 1, resolve_threads(threads)));
}

}  // namespace

TensorStats compute_tensor_stats(const PackedBytes& packed, std::uint64_t element_count, int threads,
                                 const std::function<void(std::uint64_t)>& on_chunk) {
  const BlockFormat& format = packed.format;
  const ChunkPlan plan = plan_chunks(format, packed.bytes, element_count);
  std::vector<ValueStats> partial(plan.chunks);
  std::vector<ScaleCounts> scales(plan.chunks);
  const unsigned team = thread_count(threads, plan.chunks);
  struct Scratch {
    std::vector<float> values;
    std::vector<std::byte> swapped;  // big-endian input only
  };
  std::vector<Scratch> scratch(team);
  parallel_chunks(team, plan.chunks, [&](unsigned worker, std::uint64_t c) {
    Scratch& own = scratch[worker];
    own.values.resize(plan.chunk_blocks * format.block_elements);
    const std::uint64_t first = c * plan.chunk_blocks;
    const std::uint64_t n = std::min(plan.chunk_blocks, plan.total_blocks - first);
    const auto src = little_endian_blocks(format, packed.bytes, packed.big_endian, first, n, own.swapped);
    decode_blocks(format, src, 0, n, DType::Float, own.values.data(), 1);
    partial[c].add({own.values.data(), n * format.block_elements});
    scales[c] = count_block_scales(format, src, 0, n);
    if (on_chunk) on_chunk(n * format.block_bytes);
  });
  TensorStats result;
  result.blocks = plan.total_blocks;
  for (std::uint64_t c = 0; c < plan.chunks; ++c) {
    result.values.merge(partial[c]);
    result.scales += scales[c];
  }
  return result;
}

DifferenceStats compare_tensors(const PackedBytes& a, const PackedBytes& b, std::uint64_t element_count, int threads,
                                const std::function<void(std::uint64_t)>& on_chunk) {
  const BlockFormat& format_a = a.format;
  const BlockFormat& format_b = b.format;
  plan_chunks(format_a, a.bytes, element_count);  // validates the sizes
  plan_chunks(format_b, b.bytes, element_count);
  const std::uint64_t chunk = kStatsChunkElements;  // a multiple of both block sizes
  const std::uint64_t chunks = (element_count + chunk - 1) / chunk;
  std::vector<DifferenceStats> partial(chunks);
  const unsigned team = thread_count(threads, chunks);
  struct Scratch {
    std::vector<float> xa, xb;
    std::vector<std::byte> swapped_a, swapped_b;  // big-endian input only
  };
  std::vector<Scratch> scratch(team);
  parallel_chunks(team, chunks, [&](unsigned worker, std::uint64_t c) {
    Scratch& own = scratch[worker];
    own.xa.resize(chunk);
    own.xb.resize(chunk);
    std::vector<float>& xa = own.xa;
    std::vector<float>& xb = own.xb;
    const std::uint64_t first = c * chunk;
    const std::uint64_t n = std::min(chunk, element_count - first);
    const std::uint64_t na = n / format_a.block_elements, nb = n / format_b.block_elements;
    const auto src_a =
        little_endian_blocks(format_a, a.bytes, a.big_endian, first / format_a.block_elements, na, own.swapped_a);
    const auto src_b =
        little_endian_blocks(format_b, b.bytes, b.big_endian, first / format_b.block_elements, nb, own.swapped_b);
    decode_blocks(format_a, src_a, 0, na, DType::Float, xa.data(), 1);
    decode_blocks(format_b, src_b, 0, nb, DType::Float, xb.data(), 1);
    DifferenceStats& d = partial[c];
    d.count = n;
    for (std::uint64_t i = 0; i < n; ++i) {
      const float va = xa[i], vb = xb[i];
      if (va == vb || (std::isnan(va) && std::isnan(vb))) continue;
      ++d.differing;
      const double diff = std::fabs(static_cast<double>(va) - static_cast<double>(vb));
      if (!std::isfinite(diff)) {
        ++d.nonfinite;
        continue;
      }
      d.max_abs = std::max(d.max_abs, diff);
      d.sum_sq += diff * diff;
    }
    if (on_chunk) on_chunk(n / format_a.block_elements * format_a.block_bytes);
  });
  DifferenceStats result;
  for (const DifferenceStats& d : partial) {
    result.count += d.count;
    result.differing += d.differing;
    result.nonfinite += d.nonfinite;
    result.max_abs = std::max(result.max_abs, d.max_abs);
    result.sum_sq += d.sum_sq;
  }
  return result;
}

}  // namespace onnxq
