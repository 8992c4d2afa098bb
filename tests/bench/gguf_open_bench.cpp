// Opening a GGUF file with large metadata: 1,000 tensors and a 100,000-entry
// string array (the shape of a real tokenizer vocabulary), as a file on disk.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "gguf_builder.hpp"
#include "onnxq/gguf/model.hpp"

namespace {

const std::string& large_metadata_file() {
  static const std::string path = [] {
    onnxq::testing::GgufBuilder b;
    b.kv_str("general.architecture", "llama");
    b.kv("tokenizer.ggml.tokens", 9, [](onnxq::testing::GgufBytes& w) {
      w.u32(8);
      w.u64(100000);
      for (int i = 0; i < 100000; ++i) w.str("token_" + std::to_string(i));
    });
    b.kv("tokenizer.ggml.scores", 9, [](onnxq::testing::GgufBytes& w) {
      w.u32(6);
      w.u64(100000);
      for (int i = 0; i < 100000; ++i) w.u32(0x3F800000);
    });
    for (int i = 0; i < 1000; ++i)
      b.tensor("blk." + std::to_string(i / 10) + ".w" + std::to_string(i % 10), {256, 4}, 12);
    const auto bytes = b.build();
    const std::string p = (std::filesystem::temp_directory_path() / "onnxq-bench-large-meta.gguf").string();
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return p;
  }();
  return path;
}

void BM_GgufOpenLargeMetadata(benchmark::State& state) {
  const std::string& path = large_metadata_file();
  for (auto _ : state) {
    onnxq::GgufModel model = onnxq::GgufModel::open(path);
    benchmark::DoNotOptimize(model.tensors().data());
  }
  state.counters["file_bytes"] = static_cast<double>(std::filesystem::file_size(path));
}
BENCHMARK(BM_GgufOpenLargeMetadata)->Unit(benchmark::kMillisecond);

}  // namespace
