// onnxq's decoders against ggml's own: for every format both decode the same input blocks (the
// format's ggml test blocks, testdata/gguf/blocks/<format>.bin, tiled as tests/bench/simd_bench.cpp
// tiles them) into float32 at one thread, onnxq through decode_blocks (the active SIMD path, its
// default stores) and ggml through its type traits' to_float (ggml_get_type_traits(type)->to_float,
// the row decoder of ggml-base that ggml's get_rows and its converters call). Two sizes of output:
// 256 KiB (L2-resident) and LARGE_MIB (64 by default). Buffers are allocated, touched and warmed by a
// first decode of each before timing; the two decoders run alternately and each keeps its fastest
// run. The outputs are also compared bit for bit.
//
// Not built by CMake: scripts/bench --ggml DIR compiles it against DIR's headers, the library
// (build/lib/libonnxq.a) and DIR's libggml-base, and prints its table (scripts/bench_ggml.py).
// Output, one line per format and size: format size onnxq_ns_per_elem ggml_ns_per_elem bits
// ("-" for ggml where its traits have no to_float).
//
// Usage: ggml_to_float_bench BLOCKS_DIR [LARGE_MIB [FORMATS]]   (FORMATS: q4_0,q8_0,...)
#include <ggml.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/decode/isa.hpp"
#include "onnxq/formats/format.hpp"

namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::byte> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "ggml_to_float_bench: cannot read %s\n", path.c_str());
    std::exit(1);
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(bytes.size());
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Page-aligned, every page touched before timing.
float* touched_floats(std::size_t n) {
  const std::size_t bytes = (n * sizeof(float) + 4095) / 4096 * 4096;
  auto* p = static_cast<float*>(std::aligned_alloc(4096, bytes));
  std::memset(p, 0x11, bytes);
  return p;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Result {
  double onnxq_ns, ggml_ns;  // per element; ggml_ns < 0: no to_float
  bool same_bits;
};

Result run(const onnxq::BlockFormat& f, const ggml_type_traits* traits, const std::vector<std::byte>& seed,
           std::size_t out_bytes) {
  const std::size_t blocks = std::max<std::size_t>(1, out_bytes / sizeof(float) / f.block_elements);
  const std::size_t elements = blocks * f.block_elements;
  std::vector<std::byte> src(blocks * f.block_bytes);
  for (std::size_t i = 0; i < src.size(); i += seed.size())
    std::memcpy(src.data() + i, seed.data(), std::min(seed.size(), src.size() - i));
  float* ours = touched_floats(elements);
  float* theirs = touched_floats(elements);
  const bool has_ggml = traits->to_float != nullptr;

  auto decode_onnxq = [&] {
    const auto t0 = Clock::now();
    onnxq::decode_blocks(f, src, 0, blocks, onnxq::DType::Float, ours, 1);
    return seconds_since(t0);
  };
  auto decode_ggml = [&] {
    const auto t0 = Clock::now();
    traits->to_float(src.data(), theirs, static_cast<std::int64_t>(elements));
    return seconds_since(t0);
  };
  decode_onnxq();  // warm up: code, tables, buffers
  if (has_ggml) decode_ggml();
  Result r{1e30, has_ggml ? 1e30 : -1.0, true};
  if (has_ggml) r.same_bits = std::memcmp(ours, theirs, elements * sizeof(float)) == 0;
  double total = 0;
  for (int rep = 0; rep < 5 || total < 0.2; ++rep) {
    const double a = decode_onnxq();
    r.onnxq_ns = std::min(r.onnxq_ns, a);
    total += a;
    if (has_ggml) {
      const double b = decode_ggml();
      r.ggml_ns = std::min(r.ggml_ns, b);
      total += b;
    }
    if (rep > 1000) break;
  }
  r.onnxq_ns *= 1e9 / static_cast<double>(elements);
  if (has_ggml) r.ggml_ns *= 1e9 / static_cast<double>(elements);
  std::free(ours);
  std::free(theirs);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: ggml_to_float_bench BLOCKS_DIR [LARGE_MIB [FORMATS]]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const std::size_t large_mib = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 64;
  const std::string wanted = argc > 3 ? "," + lower(argv[3]) + "," : "";
  std::printf("# onnxq path %s\n", onnxq::active_isa());
  for (const onnxq::BlockFormat& f : onnxq::all_formats()) {
    if (!f.is_block_format() && f.plain_dtype != onnxq::DType::Float16 && f.plain_dtype != onnxq::DType::BFloat16)
      continue;
    const std::string name = lower(f.ggml_name);
    if (!wanted.empty() && wanted.find("," + name + ",") == std::string::npos) continue;
    if (f.ggml_type >= static_cast<std::uint32_t>(GGML_TYPE_COUNT)) {
      std::printf("%s unknown-to-ggml\n", name.c_str());
      continue;
    }
    const ggml_type_traits* traits = ggml_get_type_traits(static_cast<ggml_type>(f.ggml_type));
    if (traits->blck_size != static_cast<std::int64_t>(f.block_elements) || traits->type_size != f.block_bytes) {
      std::printf("%s layout-differs\n", name.c_str());
      continue;
    }
    const std::vector<std::byte> seed = read_file(dir + "/" + name + ".bin");
    for (const auto& [size, bytes] : {std::pair<const char*, std::size_t>{"L2", std::size_t{256} << 10},
                                      std::pair<const char*, std::size_t>{"large", large_mib << 20}}) {
      const Result r = run(f, traits, seed, bytes);
      if (r.ggml_ns < 0)
        std::printf("%s %s %.4f - -\n", name.c_str(), size, r.onnxq_ns);
      else
        std::printf("%s %s %.4f %.4f %s\n", name.c_str(), size, r.onnxq_ns, r.ggml_ns, r.same_bits ? "same" : "DIFFER");
      std::fflush(stdout);
    }
  }
  return 0;
}
