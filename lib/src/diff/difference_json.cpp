// The comparison of two models as JSON.
#include "gguf/json_text.hpp"
#include "onnxq/diff/model_diff.hpp"

namespace onnxq {

std::string model_difference_json(std::string_view a, std::string_view b, const ModelDifference& f) {
  using json_detail::Json;
  Json rows = Json::array();
  for (const TensorDifference& p : f.tensors) {
    Json row = {{"name", p.name},        {"type_a", p.type_a},   {"type_b", p.type_b},
                {"shape_a", p.shape_a},  {"shape_b", p.shape_b}, {"identical_bytes", p.same_bytes},
                {"compared", p.compared}};
    if (p.compared) {
      row["elements"] = p.values.count;
      row["differing"] = p.values.differing;
      row["nonfinite_differences"] = p.values.nonfinite;
      row["max_abs"] = p.values.max_abs;
      row["rms"] = p.values.rms();
    }
    rows.push_back(std::move(row));
  }
  return json_detail::json_text(
      {{"a", a}, {"b", b}, {"only_in_a", f.only_a}, {"only_in_b", f.only_b}, {"tensors", rows}});
}

}  // namespace onnxq
