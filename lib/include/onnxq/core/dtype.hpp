// The dtype table: ONNX TensorProto data types with their sizes and names.
// .npy, .pb and the operators all ask this table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace onnxq {

// Values are the ONNX TensorProto.DataType codes.
enum class DType : std::int32_t {
  Undefined = 0,
  Float = 1,
  UInt8 = 2,
  Int8 = 3,
  UInt16 = 4,
  Int16 = 5,
  Int32 = 6,
  Int64 = 7,
  String = 8,
  Bool = 9,
  Float16 = 10,
  Double = 11,
  UInt32 = 12,
  UInt64 = 13,
  Complex64 = 14,
  Complex128 = 15,
  BFloat16 = 16,
  Float8E4M3FN = 17,
  Float8E4M3FNUZ = 18,
  Float8E5M2 = 19,
  Float8E5M2FNUZ = 20,
  UInt4 = 21,
  Int4 = 22,
  Float4E2M1 = 23,
};

struct DTypeInfo {
  DType dtype;
  std::string_view onnx_name;   // "FLOAT", "UINT8", ... as in the ONNX schema
  std::string_view short_name;  // "f32", "u8", ... the short spelling
  std::string_view numpy_name;  // "float32", "uint8", ...; empty when numpy has none
  std::string_view npy_descr;   // "<f4", "|u1", ...; empty when .npy has no exact descr
  std::uint32_t bits;           // bits per element; 4 for the packed 4-bit types, 0 for strings
  bool is_float;                // a floating-point (real or complex) type
  bool is_integer;              // a signed or unsigned integer type (not bool)
  bool is_signed;               // signed integer or float
};

// Every dtype onnxq knows, in code order.
std::span<const DTypeInfo> all_dtypes();

// nullptr when the code is not a known ONNX data type.
const DTypeInfo* find_dtype(std::int32_t code);
const DTypeInfo& dtype_info(DType dtype);

// Accepts the short names (f32, u8, bf16 ...), the numpy names (float32, uint8 ...) and the ONNX names.
std::optional<DType> parse_dtype_name(std::string_view name);

// Bytes needed for `count` elements (4-bit types pack two per byte, rounded up); 0 for strings.
std::size_t dtype_storage_bytes(DType dtype, std::uint64_t count);

}  // namespace onnxq
