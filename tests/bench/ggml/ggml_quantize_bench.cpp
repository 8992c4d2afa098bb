// onnxq's quantizers against ggml's own, on the same input: for every block format both quantize
// the same float32 rows (4096 values each, gaussian with heavy-tailed rows mixed in) at one thread,
// onnxq through quantize_rows (the active SIMD path) and ggml through ggml_quantize_chunk
// (quantize_row_q8_1_ref / quantize_row_q8_K_ref for Q8_1 and Q8_K). ggml's one-time grid set-up
// (ggml_quantize_init) is timed apart; onnxq has none, which its first call against its second shows.
// Each side keeps its fastest of ROUNDS runs, alternating; the bytes are compared; onnxq is also
// timed on 2 threads. Formats that need an importance matrix get one (the same for both), the others
// are timed without and, where they use one, with one.
//
// Not built by CMake: scripts/bench --ggml DIR compiles it against DIR's headers, build/lib/libonnxq.a
// and DIR's libggml-base (scripts/bench_ggml.py), and prints its table.
// Output, one line per format and case:
//   format imatrix values onnxq_ns_1t onnxq_ns_2t ggml_ns onnxq_first_ms onnxq_second_ms ggml_init_ms bytes
//
// Usage: ggml_quantize_bench [MIB_OF_VALUES [ROUNDS [FORMATS]]]   (FORMATS: q4_0,q4_k,...)
#include <ggml.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "onnxq/decode/isa.hpp"
#include "onnxq/decode/quantize_rows.hpp"
#include "onnxq/formats/format.hpp"

extern "C" {
void quantize_row_q8_1_ref(const float* x, void* y, int64_t k);
void quantize_row_q8_K_ref(const float* x, void* y, int64_t k);
}

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::uint64_t kRow = 4096;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::vector<float> bench_rows(std::uint64_t n) {
  std::vector<float> x(n);
  std::uint64_t s = 7;
  auto uniform = [&] {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return (static_cast<double>(s >> 11) + 0.5) * 0x1.0p-53;
  };
  for (std::uint64_t i = 0; i < n; ++i) {
    const double g = std::sqrt(-2 * std::log(uniform())) * std::cos(6.283185307179586 * uniform());
    x[i] = static_cast<float>((i / kRow) % 4 == 3 ? 0.02 * g / std::sqrt(uniform() + 0.01) : 0.02 * g);
  }
  return x;
}

bool slow_in_ggml(const onnxq::BlockFormat& f) {
  for (const char* name : {"IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ3_XXS", "IQ3_S", "IQ1_S", "IQ1_M"})
    if (f.gguf_name == name) return true;
  return false;
}

void ggml_quantize(const onnxq::BlockFormat& f, const float* x, std::uint64_t rows, void* dst, const float* w) {
  if (f.gguf_name == "Q8_1")
    quantize_row_q8_1_ref(x, dst, static_cast<int64_t>(rows * kRow));
  else if (f.gguf_name == "Q8_K")
    quantize_row_q8_K_ref(x, dst, static_cast<int64_t>(rows * kRow));
  else
    ggml_quantize_chunk(static_cast<ggml_type>(f.ggml_type), x, dst, 0, static_cast<int64_t>(rows), kRow, w);
}

}  // namespace

int main(int argc, char** argv) {
  const double mib = argc > 1 ? std::atof(argv[1]) : 16;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  const std::string wanted = argc > 3 ? std::string(",") + argv[3] + "," : "";
  std::printf("# onnxq path %s\n", onnxq::active_isa());
  const std::vector<float> x =
      bench_rows(std::max<std::uint64_t>(kRow, static_cast<std::uint64_t>(mib * (1 << 20) / 4) / kRow * kRow));
  std::vector<float> importance(kRow);
  for (std::uint64_t i = 0; i < kRow; ++i) importance[i] = 0.5f + static_cast<float>((i * 2654435761u) % 1000) / 250.0f;
  for (const onnxq::BlockFormat& f : onnxq::block_formats()) {
    std::string id(f.format_id.substr(5));
    if (!wanted.empty() && wanted.find("," + id + ",") == std::string::npos) continue;
    // The slow grid searches get an eighth of the values, so that ggml's side ends in seconds.
    const std::uint64_t rows = std::max<std::uint64_t>(1, x.size() / kRow / (slow_in_ggml(f) ? 8 : 1));
    const std::uint64_t bytes = rows * onnxq::quantized_row_bytes(f, kRow);
    std::vector<std::byte> ours(bytes), theirs(bytes);
    std::vector<bool> with_importance;
    if (!onnxq::quantize_requires_importance(f)) with_importance.push_back(false);
    if (onnxq::quantize_uses_importance(f)) with_importance.push_back(true);
    for (bool weighted : with_importance) {
      const float* w = weighted ? importance.data() : nullptr;
      const onnxq::QuantizeRequest request{
          &f,         onnxq::DType::Float,
          x.data(),   rows,
          kRow,       weighted ? std::span<const float>(importance) : std::span<const float>(),
          ours.data()};
      auto start = Clock::now();
      onnxq::quantize_rows(request, 1);
      const double first = seconds_since(start);
      start = Clock::now();
      onnxq::quantize_rows(request, 1);
      const double second = seconds_since(start);
      start = Clock::now();
      ggml_quantize_init(static_cast<ggml_type>(f.ggml_type));
      const double init = seconds_since(start);
      double one = second, two = 1e30, g = 1e30;
      for (int r = 0; r < rounds; ++r) {
        start = Clock::now();
        ggml_quantize(f, x.data(), rows, theirs.data(), w);
        g = std::min(g, seconds_since(start));
        start = Clock::now();
        onnxq::quantize_rows(request, 1);
        one = std::min(one, seconds_since(start));
        start = Clock::now();
        onnxq::quantize_rows(request, 2);
        two = std::min(two, seconds_since(start));
      }
      const double n = static_cast<double>(rows * kRow);
      std::printf("%s %s %llu %.3f %.3f %.3f %.3f %.3f %.3f %s\n", id.c_str(), weighted ? "yes" : "no",
                  static_cast<unsigned long long>(rows * kRow), one * 1e9 / n, two * 1e9 / n, g * 1e9 / n, first * 1e3,
                  second * 1e3, init * 1e3, ours == theirs ? "same" : "DIFFER");
      std::fflush(stdout);
    }
  }
  return 0;
}
