// Fuzz target: importance matrices, llama-imatrix's GGUF and .dat formats. Whatever is accepted has
// at least one entry, no empty entry and only finite weights.
#include <cmath>

#include "fuzz_check.hpp"
#include "onnxq/convert/importance_matrix.hpp"
#include "onnxq/core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const onnxq::ImportanceMatrix m = onnxq::parse_importance_matrix(fuzz_bytes(data, size), "fuzz.imatrix");
    FUZZ_CHECK(!m.entries.empty());
    for (const auto& [name, weights] : m.entries) {
      FUZZ_CHECK(m.legacy ? !weights.empty() : true);
      for (float w : weights) FUZZ_CHECK(std::isfinite(w));
    }
  } catch (const onnxq::Error&) {
  }
  return 0;
}
