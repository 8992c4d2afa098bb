// A strict parser for the Python dict literal in a .npy header:
//   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
// Only what numpy writes is accepted: quoted strings, True/False, tuples of non-negative integers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace onnxq::npy_detail {

struct HeaderDict {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
};

// Throws InvalidInput (Unsupported for a structured dtype) naming `source` and the offset in the header.
HeaderDict parse_header_dict(std::string_view text, std::string_view source);

}  // namespace onnxq::npy_detail
