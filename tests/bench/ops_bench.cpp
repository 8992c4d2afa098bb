// Unpack and OneHot throughput, one thread, each beside a fill of the same output size with non-zero
// bytes measured in the same run: counters give codes/s (or output GB/s) and ratio_to_fill = time /
// fill time (<= 2.0 means >= 0.5x fill bandwidth). The ratio is the best of several runs over the best
// of as many fills, interleaved so both see the same machine state; both are this thread's CPU time.
#include <benchmark/benchmark.h>

#include <time.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "onnxq/decode/isa.hpp"
#include "onnxq/ops/onehot.hpp"
#include "onnxq/ops/unpack.hpp"

namespace {

using namespace onnxq;

// This thread's CPU time in seconds.
double cpu_now() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// The best CPU time of `reps` runs of `work` over the best of `reps` fills of `buffer` with a
// non-zero byte (zero-filled lines take a hardware fast path), run alternately; `fill_best` gets
// the best fill time. The buffer is touched once first so page faults are outside both.
template <class Work>
double best_ratio_to_fill(Work&& work, std::byte* buffer, std::size_t size, int reps, double* fill_best) {
  std::memset(buffer, 0x5A, size);
  double best_work = 1e30, best_fill = 1e30;
  for (int rep = 0; rep < reps; ++rep) {
    double t0 = cpu_now();
    work();
    benchmark::ClobberMemory();
    best_work = std::min(best_work, cpu_now() - t0);
    t0 = cpu_now();
    std::memset(buffer, 0x5B + rep % 64, size);
    benchmark::ClobberMemory();
    best_fill = std::min(best_fill, cpu_now() - t0);
  }
  *fill_best = best_fill;
  return best_work / best_fill;
}

#if defined(__x86_64__)
// Best of `reps` fills of `buffer` (64-byte aligned) with non-temporal SSE2 stores of a non-zero
// pattern: the write limit without read-for-ownership, a stricter reference than memset.
double best_stream_fill(std::byte* buffer, std::size_t size, int reps) {
  double best = 1e30;
  for (int rep = 0; rep < reps; ++rep) {
    const __m128i v = _mm_set1_epi8(static_cast<char>(0x5B + rep));
    const double t0 = cpu_now();
    auto* p = reinterpret_cast<__m128i*>(buffer);
    for (std::size_t i = 0; i < size / 16; ++i) _mm_stream_si128(p + i, v);
    _mm_sfence();
    benchmark::ClobberMemory();
    best = std::min(best, cpu_now() - t0);
  }
  return best;
}
#endif

Tensor random_words(std::int64_t rows, std::int64_t words) {
  Tensor x = Tensor::zeros(DType::UInt8, {rows, words});
  std::mt19937_64 rng(1);
  for (auto& b : x.mutable_bytes()) b = static_cast<std::byte>(rng());
  return x;
}

Tensor int64_scalar(std::int64_t v) { return Tensor::from_bytes(DType::Int64, {}, std::as_bytes(std::span(&v, 1))); }

// Unpack of `rows` rows x 1Mi codes of UINT8 words along the last axis into a reused output buffer,
// through one kernel path: range(0) = bits, range(1) = index into unpack_kernel_paths()
// (portable, avx2, avx512, avx512vbmi as this CPU has them; others are skipped).
void unpack_bits_bench(benchmark::State& state, std::int64_t rows) {
  const auto bits = state.range(0);
  const std::vector<std::string> paths = unpack_kernel_paths();
  const auto path_index = static_cast<std::size_t>(state.range(1));
  if (path_index >= paths.size()) {
    state.SkipWithError("kernel path not available on this CPU");
    return;
  }
  state.SetLabel(paths[path_index]);
  const std::int64_t count = std::int64_t{1} << 20;
  const Tensor x = random_words(rows, (count * bits + 7) / 8);
  UnpackAttributes attrs;
  attrs.bits = bits;
  const Tensor c = int64_scalar(count);
  Tensor y = Tensor::zeros(DType::UInt8, {rows, count});
  for (auto _ : state) {
    unpack_into_path(x, c, attrs, y, paths[path_index]);
    benchmark::DoNotOptimize(y.mutable_bytes().data());
  }
  const std::size_t out_bytes = static_cast<std::size_t>(rows * count);
  double fill = 0;
  const double ratio = best_ratio_to_fill([&] { unpack_into_path(x, c, attrs, y, paths[path_index]); },
                                          y.mutable_bytes().data(), out_bytes, 40, &fill);
  state.SetItemsProcessed(state.iterations() * rows * count);  // items/s = codes/s
  state.counters["fill_GB/s"] = static_cast<double>(out_bytes) / fill / 1e9;
  state.counters["ratio_to_fill"] = ratio;
  state.counters["bw_vs_fill"] = 1 / ratio;
}
// 8 MiB of codes (cache-resident between runs) and 64 MiB (past streaming_store_threshold(), so the
// AVX-512 paths use non-temporal stores).
void BM_Unpack(benchmark::State& state) { unpack_bits_bench(state, 8); }
void BM_UnpackLarge(benchmark::State& state) { unpack_bits_bench(state, 64); }
// The 8 MiB case with non-temporal stores forced (threshold 0): are they worth it at this size?
void BM_UnpackStreamed(benchmark::State& state) {
  const std::size_t saved = streaming_store_threshold();
  set_streaming_store_threshold(0);
  unpack_bits_bench(state, 8);
  set_streaming_store_threshold(saved);
}
BENCHMARK(BM_UnpackStreamed)->ArgsProduct({{1, 3, 5, 7, 8}, {2, 3}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_UnpackLarge)
    ->ArgsProduct({benchmark::CreateDenseRange(1, 8, 1), {0, 1, 2, 3}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Unpack)->ArgsProduct({benchmark::CreateDenseRange(1, 8, 1), {0, 1, 2, 3}})->Unit(benchmark::kMillisecond);

// The public allocate-and-return form (includes allocating and zeroing the output each time).
void BM_UnpackAllocating(benchmark::State& state) {
  const auto bits = state.range(0);
  const std::int64_t rows = 8, count = std::int64_t{1} << 20;
  const Tensor x = random_words(rows, (count * bits + 7) / 8);
  UnpackAttributes attrs;
  attrs.bits = bits;
  const Tensor c = int64_scalar(count);
  for (auto _ : state) benchmark::DoNotOptimize(unpack(x, c, attrs).bytes().data());
  state.SetItemsProcessed(state.iterations() * rows * count);
}
BENCHMARK(BM_UnpackAllocating)->Arg(3)->Arg(4)->Unit(benchmark::kMillisecond);

// (R, G) = (3, 5): five base-3 codes per byte; range(0) = index into unpack_kernel_paths().
void BM_UnpackRadix3(benchmark::State& state) {
  const std::vector<std::string> paths = unpack_kernel_paths();
  const auto path_index = static_cast<std::size_t>(state.range(0));
  if (path_index >= paths.size()) {
    state.SkipWithError("kernel path not available on this CPU");
    return;
  }
  state.SetLabel(paths[path_index]);
  const std::int64_t rows = 8, count = 5 << 20;
  Tensor x = Tensor::zeros(DType::UInt8, {rows, count / 5});
  std::mt19937_64 rng(2);
  for (auto& b : x.mutable_bytes()) b = static_cast<std::byte>(rng() % 243);
  UnpackAttributes attrs;
  attrs.radix = 3;
  attrs.group_size = 5;
  const Tensor c = int64_scalar(count);
  Tensor y = Tensor::zeros(DType::UInt8, {rows, count});
  for (auto _ : state) {
    unpack_into_path(x, c, attrs, y, paths[path_index]);
    benchmark::DoNotOptimize(y.mutable_bytes().data());
  }
  const std::size_t out_bytes = static_cast<std::size_t>(rows * count);
  double fill = 0;
  const double ratio = best_ratio_to_fill([&] { unpack_into_path(x, c, attrs, y, paths[path_index]); },
                                          y.mutable_bytes().data(), out_bytes, 10, &fill);
  state.SetItemsProcessed(state.iterations() * rows * count);
  state.counters["fill_GB/s"] = static_cast<double>(out_bytes) / fill / 1e9;
  state.counters["ratio_to_fill"] = ratio;
  state.counters["bw_vs_fill"] = 1 / ratio;
}
BENCHMARK(BM_UnpackRadix3)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);

// OneHot: 1M int64 indices, depth 1000, float32 values: a 4 GB output. range(0): 0 = off value 0
// (the allocating form skips the fill pass: fresh storage is already zero), 1 = off value 0.5.
Tensor onehot_indices() {
  const std::int64_t n = 1000000;
  Tensor idx = Tensor::zeros(DType::Int64, {n});
  std::mt19937_64 rng(3);
  auto* p = idx.mutable_data<std::int64_t>();
  for (std::int64_t i = 0; i < n; ++i) p[i] = static_cast<std::int64_t>(rng() % 1000);
  return idx;
}

Tensor f32_pair(float off, float on) {
  const float v[2] = {off, on};
  return Tensor::from_bytes(DType::Float, {2}, std::as_bytes(std::span(v)));
}

void BM_OneHotInto(benchmark::State& state) {
  const Tensor idx = onehot_indices();
  const Tensor depth = int64_scalar(1000);
  const Tensor values = f32_pair(state.range(0) ? 0.5f : 0.0f, 1.0f);
  Tensor out = Tensor::zeros(DType::Float, {1000000, 1000});
  for (auto _ : state) {
    onehot_into(idx, depth, values, -1, OneHotVersion::V9, out);
    benchmark::DoNotOptimize(out.mutable_bytes().data());
  }
  const std::size_t out_bytes = out.bytes().size();
  double fill = 0;
  const double ratio = best_ratio_to_fill([&] { onehot_into(idx, depth, values, -1, OneHotVersion::V9, out); },
                                          out.mutable_bytes().data(), out_bytes, 3, &fill);
  state.SetItemsProcessed(state.iterations() * 1000000);  // indices/s
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(out_bytes));
  state.counters["fill_GB/s"] = static_cast<double>(out_bytes) / fill / 1e9;
  state.counters["ratio_to_fill"] = ratio;
  state.counters["bw_vs_fill"] = 1 / ratio;
#if defined(__x86_64__)
  const double stream = best_stream_fill(out.mutable_bytes().data(), out_bytes, 3);
  state.counters["bw_vs_stream_fill"] = stream / (ratio * fill);
#endif
}
BENCHMARK(BM_OneHotInto)->Arg(0)->Arg(1)->Iterations(3)->Unit(benchmark::kMillisecond);

void BM_OneHotAllocating(benchmark::State& state) {
  const Tensor idx = onehot_indices();
  const Tensor depth = int64_scalar(1000);
  const Tensor values = f32_pair(state.range(0) ? 0.5f : 0.0f, 1.0f);
  for (auto _ : state) benchmark::DoNotOptimize(onehot(idx, depth, values).bytes().data());
  state.SetItemsProcessed(state.iterations() * 1000000);
  state.SetBytesProcessed(state.iterations() * std::int64_t{4000000000});
}
BENCHMARK(BM_OneHotAllocating)->Arg(0)->Arg(1)->Iterations(3)->Unit(benchmark::kMillisecond);

}  // namespace
