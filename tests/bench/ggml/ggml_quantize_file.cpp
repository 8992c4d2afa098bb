// The baseline of `onnxq quantize --raw`, timed as a whole command: what a user of ggml runs to do
// the same work. It reads raw float32 rows from a file, quantizes them with ggml_quantize_chunk
// (after ggml_quantize_init, which the IQ grid formats need) at one thread, and writes the blocks to
// a file, in one process; scripts/bench --ggml times it beside onnxq's command on the same input and
// compares the two outputs.
//
// Not built by CMake: scripts/bench_ggml.py compiles it against a ggml checkout's headers and its
// libggml-base.
//
// Usage: ggml_quantize_file TYPE_ID N_PER_ROW IN.f32 OUT.bin
#include <ggml.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: ggml_quantize_file TYPE_ID N_PER_ROW IN.f32 OUT.bin\n");
    return 1;
  }
  const auto type = static_cast<ggml_type>(std::atoi(argv[1]));
  const std::int64_t n_per_row = std::atoll(argv[2]);
  std::FILE* in = std::fopen(argv[3], "rb");
  if (!in || n_per_row <= 0) {
    std::fprintf(stderr, "ggml_quantize_file: cannot read %s\n", argv[3]);
    return 1;
  }
  std::fseek(in, 0, SEEK_END);
  const long bytes = std::ftell(in);
  std::fseek(in, 0, SEEK_SET);
  const std::int64_t rows = bytes / 4 / n_per_row;
  std::vector<float> x(static_cast<std::size_t>(rows * n_per_row));
  if (std::fread(x.data(), 4, x.size(), in) != x.size()) {
    std::fprintf(stderr, "ggml_quantize_file: short read of %s\n", argv[3]);
    return 1;
  }
  std::fclose(in);

  ggml_quantize_init(type);
  std::vector<std::uint8_t> out(ggml_row_size(type, n_per_row) * static_cast<std::size_t>(rows));
  const std::size_t written = ggml_quantize_chunk(type, x.data(), out.data(), 0, rows, n_per_row, nullptr);

  std::FILE* o = std::fopen(argv[4], "wb");
  if (!o || std::fwrite(out.data(), 1, written, o) != written || std::fclose(o) != 0) {
    std::fprintf(stderr, "ggml_quantize_file: cannot write %s\n", argv[4]);
    return 1;
  }
  return 0;
}
