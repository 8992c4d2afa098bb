// Choosing tensors of a GGUF model by name, glob or all (the CLI's list, dequant, stats, export;
// the Python module's export), and the missing shards of a partial model named for messages.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "onnxq/gguf/model.hpp"

namespace onnxq {

// Shell-style glob (fnmatch: *, ?, [...]) on a whole tensor name.
bool glob_matches(const std::string& pattern, std::string_view name);

// Tensors named in `names` (in that order; an unknown name is an InvalidInput error that lists
// close candidates, or an Io error when shards are missing), then those matching `filter` (if not
// empty; InvalidInput when none does), or all when `all` is set. No duplicates.
std::vector<const TensorInfo*> select_tensors(const GgufModel& model, const std::vector<std::string>& names,
                                              const std::string& filter, bool all);

// "1 (m-00001-of-00003.gguf), 3 (m-00003-of-00003.gguf)": the missing shards, for messages.
std::string missing_shards_text(const GgufModel& model);

}  // namespace onnxq
