// Text to elements of a dtype, byte sizes and shapes.
#include "onnxq/core/value_text.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "onnxq/core/error.hpp"
#include "onnxq/core/half.hpp"

namespace onnxq {
namespace {

template <class T>
T parse_integer(const std::string& text, DType dtype) {
  T v{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size())
    invalid_argument("'" + text + "' is not a " + std::string(dtype_info(dtype).short_name) + " value");
  return v;
}

double parse_real(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) invalid_argument("'" + text + "' is not a number");
  return v;
}

template <class T>
void put(std::byte* dst, T v) {
  std::memcpy(dst, &v, sizeof v);
}

}  // namespace

Tensor tensor_from_text(DType dtype, const std::vector<std::string>& texts) {
  const Shape shape{static_cast<std::int64_t>(texts.size())};
  if (dtype == DType::String) return Tensor::from_strings(shape, texts);
  Tensor t = Tensor::zeros(dtype, shape);
  const std::size_t size = dtype_info(dtype).bits / 8;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    std::byte* dst = t.mutable_bytes().data() + i * size;
    const std::string& s = texts[i];
    switch (dtype) {
      case DType::Bool:
        if (s == "1" || s == "true" || s == "True")
          put<std::uint8_t>(dst, 1);
        else if (s == "0" || s == "false" || s == "False")
          put<std::uint8_t>(dst, 0);
        else
          invalid_argument("'" + s + "' is not a bool (0, 1, true, false)");
        break;
      case DType::UInt8: put(dst, parse_integer<std::uint8_t>(s, dtype)); break;
      case DType::UInt16: put(dst, parse_integer<std::uint16_t>(s, dtype)); break;
      case DType::UInt32: put(dst, parse_integer<std::uint32_t>(s, dtype)); break;
      case DType::UInt64: put(dst, parse_integer<std::uint64_t>(s, dtype)); break;
      case DType::Int8: put(dst, parse_integer<std::int8_t>(s, dtype)); break;
      case DType::Int16: put(dst, parse_integer<std::int16_t>(s, dtype)); break;
      case DType::Int32: put(dst, parse_integer<std::int32_t>(s, dtype)); break;
      case DType::Int64: put(dst, parse_integer<std::int64_t>(s, dtype)); break;
      case DType::Float: put(dst, static_cast<float>(parse_real(s))); break;
      case DType::Double: put(dst, parse_real(s)); break;
      case DType::Float16: put(dst, double_to_half(parse_real(s))); break;
      case DType::BFloat16: put(dst, double_to_bf16(parse_real(s))); break;
      default: invalid_argument("values of type " + std::string(dtype_info(dtype).short_name) + " have no text form");
    }
  }
  return t;
}

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

std::string binary_units_text(double bytes, int decimals, int largest) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (bytes >= 1024 && u < largest && u < 5) {
    bytes /= 1024;
    ++u;
  }
  char text[48];
  std::snprintf(text, sizeof text, "%.*f %s", u == 0 ? 0 : decimals, bytes, units[u]);
  return text;
}

Shape shape_from_text(const std::string& text) {
  Shape shape;
  std::string digits;
  auto flush = [&] {
    if (digits.empty()) invalid_argument("must be comma-separated sizes such as 2,32, got '" + text + "'");
    try {
      shape.push_back(std::stoll(digits));
    } catch (const std::exception&) {
      invalid_argument("size '" + digits + "' is out of range");
    }
    digits.clear();
  };
  for (char ch : text) {
    if (ch == ',')
      flush();
    else if ((ch >= '0' && ch <= '9') || (ch == '-' && digits.empty()))
      digits += ch;
    else if (ch != ' ' && ch != '[' && ch != ']')
      invalid_argument("must be comma-separated sizes such as 2,32, got '" + text + "'");
  }
  if (!digits.empty() || !shape.empty()) flush();
  return shape;
}

}  // namespace onnxq
