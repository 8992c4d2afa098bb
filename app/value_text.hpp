// Numbers and strings typed on the command line, turned into elements of a given dtype.
#pragma once

#include <string>
#include <vector>

#include "onnxq/core/tensor.hpp"

namespace onnxq::cli {

// A rank-1 tensor of `dtype` holding `texts`. Integers must fit the dtype exactly; floats are
// rounded to nearest even; bool takes 0/1/true/false; strings are taken as typed.
// Throws CLI::ValidationError naming `option` for text that is not a value of the dtype.
Tensor parse_value_list(DType dtype, const std::vector<std::string>& texts, const std::string& option);

}  // namespace onnxq::cli
