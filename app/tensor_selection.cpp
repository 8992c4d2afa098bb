#include "tensor_selection.hpp"

#include <fnmatch.h>

#include <unordered_set>

#include "log.hpp"
#include "onnxq/core/error.hpp"
#include "partial_model.hpp"
#include "text_table.hpp"

namespace onnxq::cli {

bool glob_matches(const std::string& pattern, std::string_view name) {
  return ::fnmatch(pattern.c_str(), std::string(name).c_str(), 0) == 0;
}

std::vector<const TensorInfo*> select_tensors(const GgufModel& model, const std::vector<std::string>& names,
                                              const std::string& filter, bool all) {
  std::vector<const TensorInfo*> chosen;
  std::unordered_set<const TensorInfo*> seen;
  auto take = [&](const TensorInfo* t) {
    if (seen.insert(t).second) chosen.push_back(t);
  };
  for (const std::string& name : names) {
    const TensorInfo* t = model.find_tensor(name);
    if (!t && !model.missing_shards().empty())
      fail(ErrorKind::Io, model.named_shard().path + ": no tensor named '" + name +
                              "' in the shards present; it may be in a missing shard: " + missing_shards_text(model));
    if (!t) {
      std::string hint;
      for (const TensorInfo& other : model.tensors())
        if (other.name.find(name) != std::string_view::npos && hint.size() < 200)
          hint += (hint.empty() ? "" : ", ") + std::string(other.name);
      invalid_input(model.primary().path + ": no tensor named '" + name + "'" +
                    (hint.empty() ? " (see `onnxq list`)" : "; did you mean: " + hint));
    }
    take(t);
  }
  if (all || !filter.empty()) {
    for (const TensorInfo& t : model.tensors())
      if (all || glob_matches(filter, t.name)) take(&t);
    if (!all && chosen.empty()) invalid_input(model.primary().path + ": no tensor matches the filter '" + filter + "'");
  }
  return chosen;
}

std::vector<const TensorInfo*> decodable_tensors(const GgufModel& model, std::vector<const TensorInfo*> chosen,
                                                 bool skip_unknown) {
  std::vector<const TensorInfo*> kept;
  std::string skipped;
  for (const TensorInfo* t : chosen) {
    if (t->format) {
      kept.push_back(t);
      continue;
    }
    const std::string what = "'" + escape_for_terminal(t->name) + "' (ggml type " + std::to_string(t->ggml_type) + ")";
    if (!skip_unknown)
      fail(ErrorKind::Unsupported, model.primary().path + ": tensor " + what +
                                       " is of a type onnxq does not know and cannot be decoded; --skip-unknown "
                                       "leaves such tensors out");
    skipped += (skipped.empty() ? "" : ", ") + what;
  }
  if (!skipped.empty()) {
    if (kept.empty())
      fail(ErrorKind::Unsupported,
           model.primary().path + ": every chosen tensor is of a type onnxq does not know: " + skipped);
    log::warn("skipped {} tensor(s) of types onnxq does not know: {}", chosen.size() - kept.size(), skipped);
  }
  return kept;
}

}  // namespace onnxq::cli
