// Values written as text (a command line's, a config's): elements of a dtype, byte sizes, shapes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "onnxq/core/tensor.hpp"

namespace onnxq {

// A rank-1 tensor of `dtype` holding `texts`. Integers must fit the dtype exactly; floats are read
// as doubles and rounded to the dtype to nearest even; bool takes 0, 1, true, false (True, False);
// strings are taken as they are. Throws Error(InvalidArgument) naming the text that is not a value
// of the dtype, or the dtype that has no text form.
Tensor tensor_from_text(DType dtype, const std::vector<std::string>& texts);

// A size written as text: "5GB" (decimal units, as Hugging Face's max_shard_size), "2GiB" (binary),
// "500M", "123" (bytes); units B, K/KB, M/MB, G/GB, T/TB, KiB ... TiB, case ignored, a fraction
// allowed ("1.5G"), rounded down to whole bytes. Throws Error(InvalidArgument) naming the text when it
// is not a size of at least one byte.
std::uint64_t parse_byte_size(const std::string& text);
// A byte count in binary units for people: "17 B" (whole bytes below 1 KiB), else "1.5 GiB" with
// `decimals` digits, in the largest unit up to `largest` (1 KiB ... 5 PiB) that keeps it at least 1.
std::string binary_units_text(double bytes, int decimals, int largest);

// A shape written as sizes separated by commas ("2,32", spaces and brackets ignored: "[2, 32]"),
// "" or "[]" a scalar. Throws Error(InvalidArgument) "must be comma-separated sizes such as 2,32,
// got 'TEXT'" or "size 'N' is out of range" (a front end names its option before it).
Shape shape_from_text(const std::string& text);

}  // namespace onnxq
