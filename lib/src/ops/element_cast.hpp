// Reading one element of a numeric tensor as an int64, the way OneHot casts indices and depth.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>

#include "onnxq/core/half.hpp"
#include "onnxq/core/tensor.hpp"

namespace onnxq::ops_detail {

// Truncation toward zero; nullopt for NaN and for values outside int64.
inline std::optional<std::int64_t> float_to_int64(double v) {
  if (std::isnan(v)) return std::nullopt;
  const double t = std::trunc(v);
  // -2^63 is exact in double; 2^63 is the first value past the top.
  if (t < -9223372036854775808.0 || t >= 9223372036854775808.0) return std::nullopt;
  return static_cast<std::int64_t>(t);
}

// True for the dtypes OneHot accepts as indices or depth: real numbers (not bool, string or complex).
inline bool is_real_numeric(DType d) {
  switch (d) {
    case DType::Float:
    case DType::Double:
    case DType::Float16:
    case DType::BFloat16:
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
    case DType::Int64:
    case DType::UInt8:
    case DType::UInt16:
    case DType::UInt32:
    case DType::UInt64: return true;
    default: return false;
  }
}

// Element i of a tensor whose dtype is_real_numeric; nullopt when it has no int64 value.
inline std::optional<std::int64_t> element_as_int64(const Tensor& t, std::size_t i) {
  switch (t.dtype()) {
    case DType::Int8: return t.at<std::int8_t>(i);
    case DType::Int16: return t.at<std::int16_t>(i);
    case DType::Int32: return t.at<std::int32_t>(i);
    case DType::Int64: return t.at<std::int64_t>(i);
    case DType::UInt8: return t.at<std::uint8_t>(i);
    case DType::UInt16: return t.at<std::uint16_t>(i);
    case DType::UInt32: return t.at<std::uint32_t>(i);
    case DType::UInt64: {
      const std::uint64_t v = t.at<std::uint64_t>(i);
      if (v > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
      return static_cast<std::int64_t>(v);
    }
    case DType::Float: return float_to_int64(t.at<float>(i));
    case DType::Double: return float_to_int64(t.at<double>(i));
    case DType::Float16: return float_to_int64(half_to_float(t.at<std::uint16_t>(i)));
    case DType::BFloat16: return float_to_int64(bf16_to_float(t.at<std::uint16_t>(i)));
    default: return std::nullopt;
  }
}

}  // namespace onnxq::ops_detail
