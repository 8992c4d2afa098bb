// Choosing tensors of a GGUF model by name, glob or --all (list, dequant, stats ...).
#pragma once

#include <string>
#include <vector>

#include "onnxq/gguf/model.hpp"

namespace onnxq::cli {

// Shell-style glob (fnmatch: *, ?, [...]) on a whole tensor name.
bool glob_matches(const std::string& pattern, std::string_view name);

// Tensors named in `names` (in that order; an unknown name is an InvalidInput error that
// lists close candidates), then those matching `filter` (if not empty), or all when `all` is set.
// No duplicates.
std::vector<const TensorInfo*> select_tensors(const GgufModel& model, const std::vector<std::string>& names,
                                              const std::string& filter, bool all);

// The chosen tensors that can be decoded. A tensor of a type onnxq does not know is an error
// (Error(Unsupported), naming it and its type id) unless `skip_unknown`: then it is left out with a
// warning naming it. Leaving out every chosen tensor is an error too.
std::vector<const TensorInfo*> decodable_tensors(const GgufModel& model, std::vector<const TensorInfo*> chosen,
                                                 bool skip_unknown);

}  // namespace onnxq::cli
