// Two models side by side: which tensors only one has, which changed type, shape or bytes, and how
// far apart the float32 decodings of the shared ones are. `onnxq diff` renders it; `onnxq report
// --compare` draws it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "onnxq/core/tensor.hpp"
#include "onnxq/gguf/model.hpp"
#include "onnxq/stats/value_stats.hpp"

namespace onnxq {

// One tensor both models have, as each has it.
struct TensorDifference {
  std::string name;
  std::string type_a, type_b;
  Shape shape_a, shape_b;
  bool same_bytes = false;  // same type and shape, and the same bytes once both are little-endian
  bool compared = false;    // the shapes agree and onnxq knows both types, so the values were compared
  DifferenceStats values;   // when compared (identical bytes: count set, no difference)
};

struct ModelDifference {
  std::vector<std::string> only_a, only_b;
  std::vector<TensorDifference> tensors;  // shared tensors, in A's order

  std::size_t changed() const;  // shared tensors whose type, shape or bytes differ
  bool differ() const;          // a tensor only in one, or one changed
};

struct ModelDiffOptions {
  std::function<bool(std::string_view)> selected;  // tensors to look at (all when empty)
  int threads = 0;                                 // 0: all cores
  // Progress: the bytes of A the comparison will read (first, once), then bytes as they are read
  // (from any thread), and the name of each tensor about to be decoded.
  std::function<void(std::uint64_t)> on_total;
  std::function<void(std::uint64_t)> on_bytes;
  std::function<void(std::string_view)> on_tensor;
};

// Compares a and b tensor by tensor, never holding more than a chunk of either per thread. A
// tensor of a type onnxq does not know is compared by its stored bytes only (never equal across
// byte orders). Throws what reading a tensor throws (naming the file and tensor).
ModelDifference diff_models(const GgufModel& a, const GgufModel& b, const ModelDiffOptions& options = {});

// The comparison as JSON text (`onnxq diff --json`): {a, b (the models as named), only_in_a,
// only_in_b, tensors: [{name, type_a, type_b, shape_a, shape_b, identical_bytes, compared, and when
// compared: elements, differing, nonfinite_differences, max_abs, rms}]}.
std::string model_difference_json(std::string_view a, std::string_view b, const ModelDifference& difference);

}  // namespace onnxq
