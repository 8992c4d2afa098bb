// Values written as text (a command line's, a config's) as elements of a dtype.
#pragma once

#include <string>
#include <vector>

#include "onnxq/core/tensor.hpp"

namespace onnxq {

// A rank-1 tensor of `dtype` holding `texts`. Integers must fit the dtype exactly; floats are read
// as doubles and rounded to the dtype to nearest even; bool takes 0, 1, true, false (True, False);
// strings are taken as they are. Throws Error(InvalidArgument) naming the text that is not a value
// of the dtype, or the dtype that has no text form.
Tensor tensor_from_text(DType dtype, const std::vector<std::string>& texts);

}  // namespace onnxq
