// Choosing tensors of a GGUF model by name, glob or --all (list, dequant, stats ...).
#pragma once

#include <string>
#include <vector>

#include "onnxq/gguf/file.hpp"

namespace onnxq::cli {

// Shell-style glob (fnmatch: *, ?, [...]) on a whole tensor name.
bool glob_matches(const std::string& pattern, std::string_view name);

// Tensors named in `names` (in that order; an unknown name is an InvalidInput error that
// lists close candidates), then those matching `filter` (if not empty), or all when `all` is set.
// No duplicates.
std::vector<const TensorInfo*> select_tensors(const GgufFile& model, const std::vector<std::string>& names,
                                              const std::string& filter, bool all);

}  // namespace onnxq::cli
