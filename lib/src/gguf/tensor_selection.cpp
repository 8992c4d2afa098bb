// Choosing tensors of a model by name, glob or all; the missing shards named for messages.
#include "onnxq/gguf/tensor_selection.hpp"

#include <fnmatch.h>

#include <unordered_set>

#include "onnxq/core/error.hpp"

namespace onnxq {

std::string missing_shards_text(const GgufModel& model) {
  std::string text;
  for (const MissingShard& m : model.missing_shards()) {
    if (!text.empty()) text += ", ";
    text += std::to_string(m.split_number) + " (" +
            (m.path.empty() ? "file name unknown: this file's name lacks -0000K-of-0000N" : m.path) + ")";
  }
  return text;
}

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

}  // namespace onnxq
