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
#include "onnxq/stats/value_stats.hpp"

namespace onnxq {
namespace {

struct ChunkPlan {
  std::uint64_t chunk_blocks;
  std::uint64_t total_blocks;
  std::uint64_t chunks;
};

ChunkPlan plan_chunks(const BlockSource& src, std::uint64_t element_count) {
  const BlockFormat& format = src.format();
  if (element_count % format.block_elements != 0)
    invalid_argument(std::to_string(element_count) + " elements are not a whole number of " +
                     std::string(format.gguf_name) + " blocks of " + std::to_string(format.block_elements));
  ChunkPlan plan;
  plan.total_blocks = element_count / format.block_elements;
  if (plan.total_blocks != src.block_count())
    invalid_argument(std::string(format.gguf_name) + " tensor of " + std::to_string(element_count) +
                     " elements needs " + std::to_string(plan.total_blocks * format.block_bytes) + " bytes, got " +
                     std::to_string(src.block_count() * format.block_bytes));
  plan.chunk_blocks = std::max<std::uint64_t>(1, kStatsChunkElements / format.block_elements);
  plan.chunks = (plan.total_blocks + plan.chunk_blocks - 1) / plan.chunk_blocks;
  return plan;
}

// Packed bytes in memory, which must be whole blocks.
PackedBytes whole_blocks(const BlockFormat& format, std::span<const std::byte> bytes) {
  if (bytes.size() % format.block_bytes != 0)
    invalid_argument(std::to_string(bytes.size()) + " bytes are not a whole number of " +
                     std::string(format.gguf_name) + " blocks of " + std::to_string(format.block_bytes) + " bytes");
  return PackedBytes(format, bytes);
}

// No more threads than chunks: a one-chunk tensor runs on the calling thread alone.
unsigned thread_count(int threads, std::uint64_t chunks) {
  return static_cast<unsigned>(std::clamp<std::uint64_t>(chunks, 1, resolve_threads(threads)));
}

}  // namespace

TensorStats compute_tensor_stats(const BlockSource& packed, std::uint64_t element_count, int threads,
                                 const std::function<void(std::uint64_t)>& on_chunk) {
  const BlockFormat& format = packed.format();
  const ChunkPlan plan = plan_chunks(packed, element_count);
  std::vector<ValueStats> partial(plan.chunks);
  std::vector<ScaleCounts> scales(plan.chunks);
  const unsigned team = thread_count(threads, plan.chunks);
  struct Scratch {
    std::vector<float> values;
    std::vector<std::byte> read;  // input that is not a view
  };
  std::vector<Scratch> scratch(team);
  parallel_chunks(team, plan.chunks, [&](unsigned worker, std::uint64_t c) {
    Scratch& own = scratch[worker];
    own.values.resize(plan.chunk_blocks * format.block_elements);
    const std::uint64_t first = c * plan.chunk_blocks;
    const std::uint64_t n = std::min(plan.chunk_blocks, plan.total_blocks - first);
    const auto src = packed.blocks(first, n, own.read);
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

DifferenceStats compare_tensors(const BlockSource& a, const BlockSource& b, std::uint64_t element_count, int threads,
                                const std::function<void(std::uint64_t)>& on_chunk) {
  const BlockFormat& format_a = a.format();
  const BlockFormat& format_b = b.format();
  plan_chunks(a, element_count);  // validates the sizes
  plan_chunks(b, element_count);
  const std::uint64_t chunk = kStatsChunkElements;  // a multiple of both block sizes
  const std::uint64_t chunks = (element_count + chunk - 1) / chunk;
  std::vector<DifferenceStats> partial(chunks);
  const unsigned team = thread_count(threads, chunks);
  struct Scratch {
    std::vector<float> xa, xb;
    std::vector<std::byte> read_a, read_b;  // input that is not a view
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
    const auto src_a = a.blocks(first / format_a.block_elements, na, own.read_a);
    const auto src_b = b.blocks(first / format_b.block_elements, nb, own.read_b);
    decode_blocks(format_a, src_a, 0, na, DType::Float, xa.data(), 1);
    decode_blocks(format_b, src_b, 0, nb, DType::Float, xb.data(), 1);
    DifferenceStats& d = partial[c];
    d.count = n;
    for (std::uint64_t i = 0; i < n; ++i) {
      const float va = xa[i], vb = xb[i];
      if (va == vb || (std::isnan(va) && std::isnan(vb))) {
        if (std::isfinite(vb)) d.sum_sq_b += static_cast<double>(vb) * vb;
        continue;
      }
      ++d.differing;
      const double diff = std::fabs(static_cast<double>(va) - static_cast<double>(vb));
      if (!std::isfinite(diff)) {
        ++d.nonfinite;
        continue;
      }
      d.max_abs = std::max(d.max_abs, diff);
      d.sum_sq += diff * diff;
      d.sum_sq_b += static_cast<double>(vb) * vb;
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
    result.sum_sq_b += d.sum_sq_b;
  }
  return result;
}

TensorStats compute_tensor_stats(const BlockFormat& format, std::span<const std::byte> src, std::uint64_t element_count,
                                 int threads, const std::function<void(std::uint64_t)>& on_chunk) {
  return compute_tensor_stats(whole_blocks(format, src), element_count, threads, on_chunk);
}

DifferenceStats compare_tensors(const BlockFormat& format_a, std::span<const std::byte> a, const BlockFormat& format_b,
                                std::span<const std::byte> b, std::uint64_t element_count, int threads,
                                const std::function<void(std::uint64_t)>& on_chunk) {
  return compare_tensors(whole_blocks(format_a, a), whole_blocks(format_b, b), element_count, threads, on_chunk);
}

}  // namespace onnxq
