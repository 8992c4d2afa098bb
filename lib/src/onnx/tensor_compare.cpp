#include "onnxq/onnx/tensor_compare.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "onnx/small_float.hpp"
#include "onnxq/core/half.hpp"

namespace onnxq {
namespace {

std::uint8_t nibble(const Tensor& t, std::uint64_t i) {
  const auto byte = std::to_integer<std::uint8_t>(t.bytes()[i / 2]);
  return (i % 2 == 0) ? (byte & 0x0F) : (byte >> 4);  // low nibble first
}

// One real component of a float element, widened exactly to double. `part` selects the
// imaginary half of a complex number.
double float_value(const Tensor& t, std::uint64_t i, int part = 0) {
  switch (t.dtype()) {
    case DType::Float: return t.at<float>(i);
    case DType::Double: return t.at<double>(i);
    case DType::Float16: return half_to_float(t.at<std::uint16_t>(i));
    case DType::BFloat16: return bf16_to_float(t.at<std::uint16_t>(i));
    case DType::Complex64: return t.at<float>(2 * i + part);
    case DType::Complex128: return t.at<double>(2 * i + part);
    case DType::Float8E4M3FN: return detail::float8e4m3fn_to_double(t.at<std::uint8_t>(i));
    case DType::Float8E4M3FNUZ: return detail::float8e4m3fnuz_to_double(t.at<std::uint8_t>(i));
    case DType::Float8E5M2: return detail::float8e5m2_to_double(t.at<std::uint8_t>(i));
    case DType::Float8E5M2FNUZ: return detail::float8e5m2fnuz_to_double(t.at<std::uint8_t>(i));
    case DType::Float4E2M1: return detail::float4e2m1_to_double(nibble(t, i));
    default: return 0;
  }
}

// Integers (and bool) as a common wide value; uint64 does not fit int64, so keep both.
struct IntValue {
  bool negative;
  std::uint64_t magnitude_or_bits;
  bool operator==(const IntValue&) const = default;
};

IntValue int_value(const Tensor& t, std::uint64_t i) {
  auto s = [](std::int64_t v) { return IntValue{v < 0, static_cast<std::uint64_t>(v)}; };
  auto u = [](std::uint64_t v) { return IntValue{false, v}; };
  switch (t.dtype()) {
    case DType::Int8: return s(t.at<std::int8_t>(i));
    case DType::Int16: return s(t.at<std::int16_t>(i));
    case DType::Int32: return s(t.at<std::int32_t>(i));
    case DType::Int64: return s(t.at<std::int64_t>(i));
    case DType::UInt8:
    case DType::Bool: return u(t.at<std::uint8_t>(i));
    case DType::UInt16: return u(t.at<std::uint16_t>(i));
    case DType::UInt32: return u(t.at<std::uint32_t>(i));
    case DType::UInt64: return u(t.at<std::uint64_t>(i));
    case DType::UInt4: return u(nibble(t, i));
    case DType::Int4: {
      const int v = nibble(t, i);
      return s(v >= 8 ? v - 16 : v);
    }
    default: return u(0);
  }
}

bool floats_match(double expected, double actual, const std::optional<Tolerance>& tol) {
  const bool en = std::isnan(expected), an = std::isnan(actual);
  if (en || an) return en && an;
  if (!tol || std::isinf(expected) || std::isinf(actual)) {
    // Bit-exact for the widened value: distinguishes +0 from -0.
    return expected == actual && std::signbit(expected) == std::signbit(actual);
  }
  return std::fabs(actual - expected) <= tol->atol + tol->rtol * std::fabs(expected);
}

bool element_matches(const Tensor& e, const Tensor& a, std::uint64_t i, const std::optional<Tolerance>& tol) {
  if (e.dtype() == DType::String) return e.strings()[i] == a.strings()[i];
  const DTypeInfo& info = dtype_info(e.dtype());
  if (!info.is_float) return int_value(e, i) == int_value(a, i);
  if (!floats_match(float_value(e, i), float_value(a, i), tol)) return false;
  const bool complex = e.dtype() == DType::Complex64 || e.dtype() == DType::Complex128;
  return !complex || floats_match(float_value(e, i, 1), float_value(a, i, 1), tol);
}

std::string format_double(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

}  // namespace

std::string element_index_to_string(const Shape& shape, std::uint64_t flat) {
  std::vector<std::uint64_t> index(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    const auto extent = static_cast<std::uint64_t>(shape[d]);
    index[d] = extent ? flat % extent : 0;
    flat = extent ? flat / extent : 0;
  }
  std::string s = "[";
  for (std::size_t d = 0; d < index.size(); ++d) {
    if (d) s += ',';
    s += std::to_string(index[d]);
  }
  s += ']';
  return s;
}

std::string element_to_string(const Tensor& t, std::uint64_t i) {
  if (t.dtype() == DType::String) return quote(t.strings()[i]);
  if (t.dtype() == DType::Bool) return t.at<std::uint8_t>(i) ? "true" : "false";
  const DTypeInfo& info = dtype_info(t.dtype());
  if (info.is_float) {
    // 9 significant digits tell float32 values apart, 17 doubles; the narrower types widen exactly.
    const int digits = (t.dtype() == DType::Double || t.dtype() == DType::Complex128) ? 17 : 9;
    if (t.dtype() == DType::Complex64 || t.dtype() == DType::Complex128) {
      std::string s = "(";
      s += format_double(float_value(t, i), digits);
      s += ',';
      s += format_double(float_value(t, i, 1), digits);
      s += ')';
      return s;
    }
    return format_double(float_value(t, i), digits);
  }
  const IntValue v = int_value(t, i);
  return v.negative ? std::to_string(static_cast<std::int64_t>(v.magnitude_or_bits))
                    : std::to_string(v.magnitude_or_bits);
}

std::optional<std::string> find_mismatch(const Tensor& expected, const Tensor& actual,
                                         const std::optional<Tolerance>& tol) {
  if (expected.dtype() != actual.dtype())
    return "dtype expected " + std::string(dtype_info(expected.dtype()).onnx_name) + " got " +
           std::string(dtype_info(actual.dtype()).onnx_name);
  if (expected.shape() != actual.shape())
    return "shape expected " + shape_to_string(expected.shape()) + " got " + shape_to_string(actual.shape());
  const std::uint64_t count = expected.element_count();
  for (std::uint64_t i = 0; i < count; ++i) {
    if (!element_matches(expected, actual, i, tol))
      return "element " + element_index_to_string(expected.shape(), i) + " expected " + element_to_string(expected, i) +
             " got " + element_to_string(actual, i);
  }
  return std::nullopt;
}

}  // namespace onnxq
