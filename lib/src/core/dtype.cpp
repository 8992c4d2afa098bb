#include "onnxq/core/dtype.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace onnxq {
namespace {

constexpr std::array kDTypes = {
    //       dtype                  onnx name          short    numpy        npy    bits float  int    signed
    DTypeInfo{DType::Float, "FLOAT", "f32", "float32", "<f4", 32, true, false, true},
    DTypeInfo{DType::UInt8, "UINT8", "u8", "uint8", "|u1", 8, false, true, false},
    DTypeInfo{DType::Int8, "INT8", "i8", "int8", "|i1", 8, false, true, true},
    DTypeInfo{DType::UInt16, "UINT16", "u16", "uint16", "<u2", 16, false, true, false},
    DTypeInfo{DType::Int16, "INT16", "i16", "int16", "<i2", 16, false, true, true},
    DTypeInfo{DType::Int32, "INT32", "i32", "int32", "<i4", 32, false, true, true},
    DTypeInfo{DType::Int64, "INT64", "i64", "int64", "<i8", 64, false, true, true},
    DTypeInfo{DType::String, "STRING", "str", "str", "", 0, false, false, false},
    DTypeInfo{DType::Bool, "BOOL", "bool", "bool", "|b1", 8, false, false, false},
    DTypeInfo{DType::Float16, "FLOAT16", "f16", "float16", "<f2", 16, true, false, true},
    DTypeInfo{DType::Double, "DOUBLE", "f64", "float64", "<f8", 64, true, false, true},
    DTypeInfo{DType::UInt32, "UINT32", "u32", "uint32", "<u4", 32, false, true, false},
    DTypeInfo{DType::UInt64, "UINT64", "u64", "uint64", "<u8", 64, false, true, false},
    DTypeInfo{DType::Complex64, "COMPLEX64", "c64", "complex64", "<c8", 64, true, false, true},
    DTypeInfo{DType::Complex128, "COMPLEX128", "c128", "complex128", "<c16", 128, true, false, true},
    // numpy has no bfloat16: .npy files carry its bit patterns as uint16.
    DTypeInfo{DType::BFloat16, "BFLOAT16", "bf16", "bfloat16", "<u2", 16, true, false, true},
    DTypeInfo{DType::Float8E4M3FN, "FLOAT8E4M3FN", "f8e4m3fn", "float8_e4m3fn", "", 8, true, false, true},
    DTypeInfo{DType::Float8E4M3FNUZ, "FLOAT8E4M3FNUZ", "f8e4m3fnuz", "float8_e4m3fnuz", "", 8, true, false, true},
    DTypeInfo{DType::Float8E5M2, "FLOAT8E5M2", "f8e5m2", "float8_e5m2", "", 8, true, false, true},
    DTypeInfo{DType::Float8E5M2FNUZ, "FLOAT8E5M2FNUZ", "f8e5m2fnuz", "float8_e5m2fnuz", "", 8, true, false, true},
    DTypeInfo{DType::UInt4, "UINT4", "u4", "uint4", "", 4, false, true, false},
    DTypeInfo{DType::Int4, "INT4", "i4", "int4", "", 4, false, true, true},
    DTypeInfo{DType::Float4E2M1, "FLOAT4E2M1", "f4e2m1", "float4_e2m1fn", "", 4, true, false, true},
};

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

}  // namespace

std::span<const DTypeInfo> all_dtypes() { return kDTypes; }

const DTypeInfo* find_dtype(std::int32_t code) {
  for (const auto& info : kDTypes)
    if (static_cast<std::int32_t>(info.dtype) == code) return &info;
  return nullptr;
}

const DTypeInfo& dtype_info(DType dtype) {
  static const DTypeInfo undefined{DType::Undefined, "UNDEFINED", "undefined", "", "", 0, false, false, false};
  const DTypeInfo* info = find_dtype(static_cast<std::int32_t>(dtype));
  return info ? *info : undefined;
}

std::optional<DType> parse_dtype_name(std::string_view name) {
  const std::string wanted = lower(name);
  for (const auto& info : kDTypes) {
    if (wanted == info.short_name || wanted == info.numpy_name || wanted == lower(info.onnx_name)) return info.dtype;
  }
  if (wanted == "float") return DType::Float;
  if (wanted == "half") return DType::Float16;
  if (wanted == "double") return DType::Double;
  if (wanted == "string") return DType::String;
  return std::nullopt;
}

std::size_t dtype_storage_bytes(DType dtype, std::uint64_t count) {
  const std::uint32_t bits = dtype_info(dtype).bits;
  if (bits == 4) return static_cast<std::size_t>((count + 1) / 2);
  return static_cast<std::size_t>(count * (bits / 8));
}

}  // namespace onnxq
