// The program scripts/bench --arm runs under qemu-aarch64 with the instruction-counting plugin
// (insn_count.c): one decode of one block (the dispatch's one-time set-up), then REPEATS decodes of
// BLOCKS random blocks of FORMAT to float32 on the decoder path PATH, on one thread. The script
// runs it with REPEATS 0 and N and divides the difference by N decodes' elements.
//   onnxq_decode_count --list                      the decoder paths, then the block formats and sizes
//   onnxq_decode_count FORMAT PATH BLOCKS REPEATS
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "onnxq/core/error.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/decode/isa.hpp"
#include "onnxq/formats/format.hpp"

int main(int argc, char** argv) try {
  using namespace onnxq;
  if (argc == 2 && std::string(argv[1]) == "--list") {
    for (const std::string& path : supported_isas()) std::printf("path %s\n", path.c_str());
    for (const BlockFormat& f : block_formats())
      std::printf("format %.*s %u\n", static_cast<int>(f.format_id.size()), f.format_id.data(), f.block_elements);
    return 0;
  }
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s --list | FORMAT PATH BLOCKS REPEATS\n", argv[0]);
    return 1;
  }
  const BlockFormat* f = find_format(argv[1]);
  if (!f) {
    std::fprintf(stderr, "unknown format %s\n", argv[1]);
    return 1;
  }
  select_isa(argv[2]);
  const std::uint64_t blocks = std::strtoull(argv[3], nullptr, 10);
  const int repeats = std::atoi(argv[4]);
  std::mt19937 rng(f->ggml_type + 1);
  std::vector<std::byte> src(blocks * f->block_bytes);
  for (std::byte& b : src) b = static_cast<std::byte>(rng() & 0xFF);
  std::vector<float> out(blocks * f->block_elements);
  decode_blocks(*f, src, 0, 1, DType::Float, out.data(), 1);
  for (int r = 0; r < repeats; ++r) decode_blocks(*f, src, 0, blocks, DType::Float, out.data(), 1);
  return out[0] == 12345.0f ? 2 : 0;  // keeps the output alive
} catch (const onnxq::Error& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return 1;
}
