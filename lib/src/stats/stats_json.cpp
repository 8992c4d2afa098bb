// The statistics' JSON: one schema for every front end that prints it.
#include <nlohmann/json.hpp>

#include "onnxq/stats/value_stats.hpp"

namespace onnxq {

std::string tensor_stats_json(const std::vector<NamedTensorStats>& rows) {
  using Json = nlohmann::ordered_json;
  Json out = Json::array();
  for (const NamedTensorStats& r : rows) {
    const ValueStats& v = r.stats.values;
    const ScaleCounts& s = r.stats.scales;
    auto number = [&](double x) { return v.finite ? Json(x) : Json(nullptr); };
    out.push_back({{"name", r.name},
                   {"type", r.type},
                   {"shape", r.shape},
                   {"elements", v.count},
                   {"min", number(v.min)},
                   {"max", number(v.max)},
                   {"mean", number(v.mean)},
                   {"std", number(v.stddev())},
                   {"zeros", v.zeros},
                   {"nan", v.nan},
                   {"inf", v.inf},
                   {"blocks", r.stats.blocks},
                   {"scale_nan_blocks", s.nan},
                   {"scale_inf_blocks", s.inf},
                   {"scale_subnormal_blocks", s.subnormal}});
  }
  // Tensor names come from the file and need not be UTF-8: bad bytes are replaced, never thrown on.
  return out.dump(2, ' ', false, Json::error_handler_t::replace);
}

}  // namespace onnxq
