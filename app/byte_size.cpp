#include "byte_size.hpp"

#include <cctype>
#include <cmath>

#include "onnxq/core/error.hpp"

namespace onnxq::cli {

std::uint64_t parse_byte_size(const std::string& text) {
  std::size_t used = 0;
  double number = 0;
  try {
    number = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit;
  for (char c : text.substr(used))
    if (!std::isspace(static_cast<unsigned char>(c)))
      unit += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  double scale = 0;
  if (unit.empty() || unit == "B")
    scale = 1;
  else if (unit == "K" || unit == "KB")
    scale = 1e3;
  else if (unit == "M" || unit == "MB")
    scale = 1e6;
  else if (unit == "G" || unit == "GB")
    scale = 1e9;
  else if (unit == "T" || unit == "TB")
    scale = 1e12;
  else if (unit == "KIB")
    scale = 1024.0;
  else if (unit == "MIB")
    scale = 1024.0 * 1024;
  else if (unit == "GIB")
    scale = 1024.0 * 1024 * 1024;
  else if (unit == "TIB")
    scale = 1024.0 * 1024 * 1024 * 1024;
  const double bytes = number * scale;
  if (used == 0 || scale == 0 || !(bytes >= 1) || bytes > 1.8e19)
    invalid_argument("'" + text + "' is not a size; expected e.g. 5GB, 500MB, 2GiB or a byte count");
  return static_cast<std::uint64_t>(std::floor(bytes));
}

}  // namespace onnxq::cli
