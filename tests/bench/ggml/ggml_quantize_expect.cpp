// Writes the expected bytes of onnxq's quantizers (testdata/quantize/) with ggml's own functions:
// ggml_quantize_chunk for every block format it takes, quantize_row_q8_1_ref / quantize_row_q8_K_ref
// for Q8_1 and Q8_K. Run by scripts/gen-quant-expectations against a ggml checkout; no test needs ggml.
//
// Each input set is rows of float32 (SET.input.f32) and one importance weight per column
// (SET.importance.f32); SET.FORMAT.bin holds the format's bytes of every row without the importance
// matrix, then with it (only with it for the formats ggml refuses without one). The rows come from a
// fixed generator, so the files are the same on every run.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "ggml.h"

extern "C" {
void quantize_row_q8_1_ref(const float* x, void* y, int64_t k);
void quantize_row_q8_K_ref(const float* x, void* y, int64_t k);
}

namespace {

// splitmix64: a small generator whose sequence is fixed by its seed.
struct Random {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return ((next() >> 11) + 0.5) * 0x1.0p-53; }  // (0, 1)
  double gaussian() { return std::sqrt(-2.0 * std::log(uniform())) * std::cos(6.283185307179586 * uniform()); }
};

struct InputSet {
  std::string name;
  int n_per_row;
  std::vector<std::vector<float>> rows;
  bool extreme;  // magnitudes where ggml's grid searches abort: not given to those formats
};

std::vector<float> row_of(int n, Random& rng, double (*shape)(Random&, int), double scale) {
  std::vector<float> row(n);
  for (int i = 0; i < n; ++i) row[i] = static_cast<float>(shape(rng, i) * scale);
  return row;
}

double gaussian(Random& r, int) { return r.gaussian(); }
double heavy_tailed(Random& r, int) { return r.gaussian() / std::sqrt(r.uniform() * r.uniform() + 1e-4); }
double zero(Random&, int) { return 0.0; }
double one(Random&, int) { return 1.0; }
double small_integers(Random& r, int) { return static_cast<int>(r.next() % 5) - 2; }  // exact ties
double ramp(Random&, int i) { return (i % 97) / 48.0 - 1.0; }
double half_zero(Random& r, int i) { return i % 2 ? r.gaussian() : 0.0; }
double positive(Random& r, int) { return std::fabs(r.gaussian()); }

InputSet common_rows() {
  Random rng{1};
  InputSet s{"common", 256, {}, false};
  auto add = [&](double (*shape)(Random&, int), double scale) { s.rows.push_back(row_of(256, rng, shape, scale)); };
  add(gaussian, 1.0);
  add(gaussian, 0.02);  // typical weights
  add(heavy_tailed, 0.05);
  add(zero, 1.0);
  add(one, 0.5);
  add(one, -3.0);
  add(small_integers, 1.0);
  add(ramp, 1.0);
  add(half_zero, 1.0);
  add(positive, 0.1);
  add(gaussian, 1e-40);  // subnormal
  add(gaussian, 1e-30);
  add(gaussian, 1e4);
  add(heavy_tailed, 3e2);
  std::vector<float> outlier = row_of(256, rng, gaussian, 0.01);
  outlier[77] = 50.0f;
  s.rows.push_back(outlier);
  std::vector<float> spike(256, 0.0f);
  spike[200] = -7.25f;
  s.rows.push_back(spike);
  for (int i = 0; i < 16; ++i) add(i % 2 ? heavy_tailed : gaussian, std::pow(10.0, (i % 5) - 3));
  return s;
}

InputSet long_rows() {
  Random rng{2};
  InputSet s{"long", 2048, {}, false};
  for (int i = 0; i < 4; ++i) s.rows.push_back(row_of(2048, rng, i % 2 ? heavy_tailed : gaussian, 0.03));
  return s;
}

InputSet extreme_rows() {
  Random rng{3};
  InputSet s{"extreme", 256, {}, true};
  for (double scale : {1e15, 1e20, 1e30, 1e36}) s.rows.push_back(row_of(256, rng, gaussian, scale));
  s.rows.push_back(std::vector<float>(256, 3.4e38f));
  s.rows.push_back(std::vector<float>(256, -1e-45f));
  return s;
}

std::vector<float> importance_for(int n, std::uint64_t seed) {
  Random rng{seed};
  std::vector<float> w(n);
  for (int i = 0; i < n; ++i) w[i] = i % 37 == 5 ? 0.0f : static_cast<float>(std::exp(rng.gaussian()));
  return w;
}

bool write_file(const std::string& path, const void* data, std::size_t bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  const bool ok = std::fwrite(data, 1, bytes, f) == bytes;
  return std::fclose(f) == 0 && ok;
}

bool grid_search_type(ggml_type t) {
  return t == GGML_TYPE_IQ2_XXS || t == GGML_TYPE_IQ2_XS || t == GGML_TYPE_IQ2_S || t == GGML_TYPE_IQ3_XXS ||
         t == GGML_TYPE_IQ3_S || t == GGML_TYPE_IQ1_S || t == GGML_TYPE_IQ1_M;
}

// ggml's bytes of `rows`, each quantized as one call (so every row is its own chunk, as in llama-quantize).
std::vector<std::uint8_t> quantize(ggml_type type, const InputSet& s, const float* importance) {
  const std::size_t row_bytes = ggml_row_size(type, s.n_per_row);
  std::vector<std::uint8_t> out(row_bytes * s.rows.size());
  for (std::size_t r = 0; r < s.rows.size(); ++r) {
    std::uint8_t* dst = out.data() + r * row_bytes;
    if (type == GGML_TYPE_Q8_1)
      quantize_row_q8_1_ref(s.rows[r].data(), dst, s.n_per_row);
    else if (type == GGML_TYPE_Q8_K)
      quantize_row_q8_K_ref(s.rows[r].data(), dst, s.n_per_row);
    else
      ggml_quantize_chunk(type, s.rows[r].data(), dst, 0, 1, s.n_per_row, importance);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const ggml_type types[] = {GGML_TYPE_Q4_0,  GGML_TYPE_Q4_1,   GGML_TYPE_Q5_0,    GGML_TYPE_Q5_1,   GGML_TYPE_Q8_0,
                             GGML_TYPE_Q8_1,  GGML_TYPE_Q2_K,   GGML_TYPE_Q3_K,    GGML_TYPE_Q4_K,   GGML_TYPE_Q5_K,
                             GGML_TYPE_Q6_K,  GGML_TYPE_Q8_K,   GGML_TYPE_IQ2_XXS, GGML_TYPE_IQ2_XS, GGML_TYPE_IQ3_XXS,
                             GGML_TYPE_IQ1_S, GGML_TYPE_IQ4_NL, GGML_TYPE_IQ3_S,   GGML_TYPE_IQ2_S,  GGML_TYPE_IQ4_XS,
                             GGML_TYPE_IQ1_M, GGML_TYPE_TQ1_0,  GGML_TYPE_TQ2_0,   GGML_TYPE_MXFP4,  GGML_TYPE_NVFP4,
                             GGML_TYPE_Q1_0,  GGML_TYPE_Q2_0};
  std::uint64_t seed = 100;
  for (const InputSet& s : {common_rows(), long_rows(), extreme_rows()}) {
    std::vector<float> flat;
    for (const auto& row : s.rows) flat.insert(flat.end(), row.begin(), row.end());
    const std::vector<float> importance = importance_for(s.n_per_row, seed++);
    if (!write_file(dir + "/" + s.name + ".input.f32", flat.data(), flat.size() * 4) ||
        !write_file(dir + "/" + s.name + ".importance.f32", importance.data(), importance.size() * 4)) {
      std::perror(dir.c_str());
      return 1;
    }
    for (ggml_type type : types) {
      if (s.extreme && grid_search_type(type)) continue;
      std::vector<std::uint8_t> bytes;
      if (!ggml_quantize_requires_imatrix(type)) bytes = quantize(type, s, nullptr);
      const std::vector<std::uint8_t> weighted = quantize(type, s, importance.data());
      bytes.insert(bytes.end(), weighted.begin(), weighted.end());
      std::string name = ggml_type_name(type);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (!write_file(dir + "/" + s.name + "." + name + ".bin", bytes.data(), bytes.size())) {
        std::perror(dir.c_str());
        return 1;
      }
    }
  }
  return 0;
}
