// Decoder throughput per format x output dtype x path x size x threads, each beside a fill of
// the same output buffer measured in the same benchmark (the machine's write bandwidth drifts
// from minute to minute) with the same kind of store: non-temporal when the decoder may stream
// ("large"), ordinary otherwise. The fill writes NON-ZERO bytes: zero-filled lines take a
// hardware fast path. Pages are faulted in before either is timed. "large" is 4x the last-level
// cache (at least 64 MiB), so neither fits in it. Inputs are ggml-quantized blocks (testdata) tiled.
// Counters (fastest repetition): GBps, memset_GBps (the fill), x_memset (their ratio), ns_per_elem.
// scripts/bench runs this and prints the table.
#include <benchmark/benchmark.h>
#include <emmintrin.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "expected_npy.hpp"
#include "onnxq/core/parallel.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/decode/isa.hpp"
#include "onnxq/formats/format.hpp"

namespace onnxq {
namespace {

using Clock = std::chrono::steady_clock;

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<std::byte, FreeDeleter>;

Buffer aligned_buffer(std::size_t bytes) {
  const std::size_t rounded = (bytes + 4095) / 4096 * 4096;
  auto* p = static_cast<std::byte*>(std::aligned_alloc(4096, rounded));
  std::memset(p, 0x11, rounded);  // fault every page in before timing
  return Buffer(p);
}

std::string stem(const BlockFormat& f) {
  return f.is_block_format() ? std::string(f.format_id.substr(5)) : std::string(f.ggml_name);
}

// `blocks` blocks of the format's ggml test blocks, repeated.
std::vector<std::byte> tiled_input(const BlockFormat& f, std::size_t blocks) {
  const std::vector<std::byte> seed =
      testing::read_file_bytes(testing::testdata_path("gguf/blocks/" + stem(f) + ".bin"));
  std::vector<std::byte> src(blocks * f.block_bytes);
  for (std::size_t i = 0; i < src.size(); i += seed.size())
    std::memcpy(src.data() + i, seed.data(), std::min(seed.size(), src.size() - i));
  return src;
}

// Fills [p, p + bytes) (16-byte aligned, a multiple of 16) with a non-zero pattern using 16-byte
// stores, ordinary or non-temporal: the same store kind as the decoder it is compared with
// (glibc's memset picks its own kind by size, so it is not used here).
void fill(std::byte* p, std::size_t bytes, bool non_temporal) {
  const __m128i v = _mm_set1_epi8(0x3F);
  auto* q = reinterpret_cast<__m128i*>(p);
  const std::size_t n = bytes / 16;
  if (non_temporal) {
    for (std::size_t i = 0; i < n; ++i) _mm_stream_si128(q + i, v);
    _mm_sfence();
  } else {
    for (std::size_t i = 0; i < n; ++i) _mm_store_si128(q + i, v);
  }
}

// Best-case bytes/s of filling `bytes` at dst on `threads` threads.
// Timings are the fastest repetition: this machine is shared, and the fastest run is the
// one least disturbed by other processes (the decode is timed the same way).
double fill_rate(std::byte* dst, std::size_t bytes, int threads, bool non_temporal) {
  double best = 1e30, total = 0;
  for (int reps = 0; total < 0.05 || reps < 5; ++reps) {
    const auto t0 = Clock::now();
    // On the library's OpenMP loop: the same wake-ups, so only the stores differ.
    const std::size_t n = static_cast<std::size_t>(threads);
    parallel_chunks(static_cast<unsigned>(threads), n, [&](unsigned, std::uint64_t t) {
      const std::size_t part = (bytes / n + 63) / 64 * 64, begin = std::min(bytes, t * part);
      fill(dst + begin, std::min(part, bytes - begin) / 16 * 16, non_temporal);
    });
    benchmark::ClobberMemory();
    const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
    best = std::min(best, dt);
    total += dt;
  }
  return static_cast<double>(bytes) / best;
}

// The last-level cache as lscpu reports it: the highest-level cache of CPU 0 in sysfs ("32768K").
// glibc's sysconf(_SC_LEVEL3_CACHE_SIZE) reads CPUID, which a VM can misreport (320 MiB for a
// 32 MiB L3 here); it is only the fallback.
std::size_t last_level_cache_bytes() {
  int best_level = 0;
  std::size_t best = 0;
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level_file(dir + "level"), size_file(dir + "size");
    int level = 0;
    std::string size;
    if (!(level_file >> level) || !(size_file >> size) || size.empty()) continue;
    std::size_t bytes = std::strtoull(size.c_str(), nullptr, 10);
    if (size.back() == 'K') bytes <<= 10;
    if (size.back() == 'M') bytes <<= 20;
    if (level > best_level) best_level = level, best = bytes;
  }
  if (best > 0) return best;
  long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (llc <= 0) llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return static_cast<std::size_t>(std::max(llc, 0L));
}

// "large": 4x the last-level cache, at least 64 MiB.
std::size_t large_bytes() { return std::max<std::size_t>(std::size_t{64} << 20, 4 * last_level_cache_bytes()); }

struct Case {
  const BlockFormat* format;
  std::string path;
  DType out;
  std::string size_name;  // L2 or large
  std::size_t out_bytes;  // per thread for L2 (each core keeps its part in its own L2)
  int threads;
  bool streaming;  // large only: allow non-temporal stores
};

void run_case(benchmark::State& state, const Case& c) {
  select_isa(c.path);
  // Streaming cases: non-temporal stores for their whole output; others: ordinary stores only.
  set_streaming_store_threshold(c.streaming ? 0 : std::numeric_limits<std::size_t>::max());
  const BlockFormat& f = *c.format;
  const std::size_t out_size = dtype_info(c.out).bits / 8;
  const std::size_t block_out = std::size_t{f.block_elements} * out_size;
  const std::size_t blocks = std::max<std::size_t>(1, c.out_bytes / block_out);
  const std::size_t bytes = blocks * block_out;
  const std::vector<std::byte> src = tiled_input(f, blocks);
  Buffer dst = aligned_buffer(bytes);

  decode_blocks(f, src, 0, blocks, c.out, dst.get(), c.threads);  // warm up
  double best = 1e30;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    decode_blocks(f, src, 0, blocks, c.out, dst.get(), c.threads);
    benchmark::ClobberMemory();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  const double reference = fill_rate(dst.get(), bytes, c.threads, c.streaming);
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes * state.iterations()));
  state.counters["GBps"] = static_cast<double>(bytes) / best / 1e9;
  state.counters["memset_GBps"] = reference / 1e9;
  state.counters["x_memset"] = static_cast<double>(bytes) / best / reference;
  state.counters["out_mib"] = static_cast<double>(bytes) / (1 << 20);
  state.counters["llc_mib"] = static_cast<double>(last_level_cache_bytes()) / (1 << 20);
  state.counters["ns_per_elem"] = best * 1e9 / static_cast<double>(blocks * f.block_elements);
  set_streaming_store_threshold(std::size_t{32} << 20);
  select_isa("");
}

const char* out_name(DType t) {
  return t == DType::Float ? "f32" : t == DType::Float16 ? "f16" : t == DType::BFloat16 ? "bf16" : "f64";
}

bool register_all() {
  std::vector<const BlockFormat*> formats;
  for (const BlockFormat& f : all_formats())
    if (f.is_block_format() || f.plain_dtype == DType::Float16 || f.plain_dtype == DType::BFloat16)
      formats.push_back(&f);
  std::vector<Case> cases;
  for (const BlockFormat* f : formats)
    for (const std::string& path : supported_isas()) {
      for (DType out : {DType::Float, DType::Float16, DType::BFloat16, DType::Double})
        for (int threads : {1, 2}) {
          if (out != DType::Float && threads != 1) continue;  // other dtypes: L2, 1 thread
          cases.push_back({f, path, out, "L2", (std::size_t{256} << 10) * threads, threads, false});
        }
      for (int threads : {1, 2}) {
        cases.push_back({f, path, DType::Float, "large", large_bytes(), threads, true});
        cases.push_back({f, path, DType::Float, "large-cached", large_bytes(), threads, false});
      }
    }
  for (const Case& c : cases) {
    const std::string name = "decode/" + stem(*c.format) + "/" + out_name(c.out) + "/" + c.path + "/" + c.size_name +
                             "/t" + std::to_string(c.threads);
    benchmark::RegisterBenchmark(name.c_str(), [c](benchmark::State& s) { run_case(s, c); })
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
  }
  return true;
}

const bool registered = register_all();

}  // namespace
}  // namespace onnxq
