// The CLI's side of choosing tensors: the library chooses (onnxq/gguf/tensor_selection.hpp); this
// leaves out, with a warning, those a command cannot decode.
#pragma once

#include <vector>

#include "onnxq/gguf/tensor_selection.hpp"

namespace onnxq::cli {

// The chosen tensors that can be decoded. A tensor of a type onnxq does not know is an error
// (Error(Unsupported), naming it and its type id) unless `skip_unknown`: then it is left out with a
// warning naming it. Leaving out every chosen tensor is an error too.
std::vector<const TensorInfo*> decodable_tensors(const GgufModel& model, std::vector<const TensorInfo*> chosen,
                                                 bool skip_unknown);

}  // namespace onnxq::cli
