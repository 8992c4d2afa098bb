// Scalar reference decoders, one thread, FLOAT output: ns per element for an L2-sized
// output (256 KiB) and a large one (32 MiB), beside a memset of the same output size.
// Input: ggml-quantized blocks from testdata/gguf/blocks/<fmt>.bin, tiled.
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>
#include <vector>

#include "expected_npy.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/formats/format.hpp"

namespace {

using namespace onnxq;

constexpr std::size_t kSmallElements = 64 * 1024;        // 256 KiB of float32
constexpr std::size_t kLargeElements = 8 * 1024 * 1024;  // 32 MiB of float32

std::vector<std::byte> tiled_blocks(const BlockFormat& f, std::size_t elements) {
  const auto src =
      testing::read_file_bytes(testing::testdata_path("gguf/blocks/" + std::string(f.format_id.substr(5)) + ".bin"));
  const std::size_t blocks = elements / f.block_elements;
  std::vector<std::byte> out(blocks * f.block_bytes);
  for (std::size_t off = 0; off < out.size(); off += src.size())
    std::memcpy(out.data() + off, src.data(), std::min(src.size(), out.size() - off));
  return out;
}

void BM_ScalarDecode(benchmark::State& state, const BlockFormat* f, std::size_t elements) {
  const BlockDecoder* dec = scalar_block_decoder(f->ggml_type);
  const std::vector<std::byte> in = tiled_blocks(*f, elements);
  std::vector<float> out(elements);
  const std::size_t blocks = elements / f->block_elements;
  for (auto _ : state) {
    dec->decode(reinterpret_cast<const std::uint8_t*>(in.data()), blocks, out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.counters["ns/elem"] = benchmark::Counter(
      static_cast<double>(elements), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * elements * sizeof(float)));
}

void BM_MemsetBaseline(benchmark::State& state, std::size_t elements) {
  std::vector<float> out(elements);
  for (auto _ : state) {
    std::memset(out.data(), 0, elements * sizeof(float));
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.counters["ns/elem"] = benchmark::Counter(
      static_cast<double>(elements), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * elements * sizeof(float)));
}

const bool registered = [] {
  for (std::size_t n : {kSmallElements, kLargeElements}) {
    const std::string size = n == kSmallElements ? "256KiB" : "32MiB";
    benchmark::RegisterBenchmark(("memset/" + size).c_str(), BM_MemsetBaseline, n);
    for (const BlockFormat& f : block_formats())
      benchmark::RegisterBenchmark(("scalar/" + std::string(f.ggml_name) + "/" + size).c_str(), BM_ScalarDecode, &f, n);
  }
  return true;
}();

}  // namespace
