// GgufValue / GgufArray accessors: typed views of metadata in the mapping.
#include <bit>
#include <cstring>

#include "onnxq/core/error.hpp"
#include "parser.hpp"

namespace onnxq {

using gguf_detail::ByteReader;

namespace {

[[noreturn]] void wrong_type(GgufType have, std::string_view want) {
  invalid_input("metadata value has type " + std::string(gguf_type_name(have)) + ", expected " + std::string(want));
}

std::int64_t sign_extend(std::uint64_t bits, GgufType t) {
  switch (t) {
    case GgufType::Int8: return static_cast<std::int8_t>(bits);
    case GgufType::Int16: return static_cast<std::int16_t>(bits);
    case GgufType::Int32: return static_cast<std::int32_t>(bits);
    default: return static_cast<std::int64_t>(bits);
  }
}

}  // namespace

bool GgufValue::is_integer() const {
  switch (type_) {
    case GgufType::UInt8:
    case GgufType::Int8:
    case GgufType::UInt16:
    case GgufType::Int16:
    case GgufType::UInt32:
    case GgufType::Int32:
    case GgufType::UInt64:
    case GgufType::Int64: return true;
    default: return false;
  }
}

std::uint64_t GgufValue::as_u64() const {
  if (!is_integer()) wrong_type(type_, "an integer");
  if (gguf_type_is_signed(type_)) {
    const std::int64_t v = sign_extend(bits_, type_);
    if (v < 0) invalid_input("metadata value " + std::to_string(v) + " is negative, expected a non-negative integer");
    return static_cast<std::uint64_t>(v);
  }
  return bits_;
}

std::int64_t GgufValue::as_i64() const {
  if (!is_integer()) wrong_type(type_, "an integer");
  if (gguf_type_is_signed(type_)) return sign_extend(bits_, type_);
  if (bits_ > static_cast<std::uint64_t>(INT64_MAX))
    invalid_input("metadata value " + std::to_string(bits_) + " does not fit a signed 64-bit integer");
  return static_cast<std::int64_t>(bits_);
}

float GgufValue::as_f32() const {
  if (type_ != GgufType::Float32) wrong_type(type_, "f32");
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits_));
}

double GgufValue::as_f64() const {
  if (type_ == GgufType::Float32) return as_f32();
  if (type_ != GgufType::Float64) wrong_type(type_, "f32 or f64");
  return std::bit_cast<double>(bits_);
}

bool GgufValue::as_bool() const {
  if (type_ != GgufType::Bool) wrong_type(type_, "bool");
  return bits_ != 0;
}

std::uint8_t GgufValue::bool_byte() const {
  if (type_ != GgufType::Bool) wrong_type(type_, "bool");
  return static_cast<std::uint8_t>(bits_);
}

std::string_view GgufValue::as_string() const {
  if (type_ != GgufType::String) wrong_type(type_, "str");
  return text_;
}

GgufArray GgufValue::as_array() const {
  if (type_ != GgufType::Array) wrong_type(type_, "arr");
  return GgufArray(*this);
}

GgufValue GgufArray::at(std::uint64_t index) const {
  if (index >= value_.count_)
    invalid_input("array index " + std::to_string(index) + " out of range (size " + std::to_string(value_.count_) +
                  ")");
  const std::uint64_t size = gguf_scalar_size(value_.elem_type_);
  ByteReader reader({value_.array_begin_, static_cast<std::size_t>(value_.array_bytes_)}, "array", value_.array_bytes_);
  reader.set_big_endian(value_.big_endian_);
  if (size != 0) {
    reader.skip(index * size, "array element");
    return GgufParser::read_value(reader, value_.elem_type_, 1);
  }
  GgufValue v;
  for (std::uint64_t i = 0; i <= index; ++i) v = GgufParser::read_value(reader, value_.elem_type_, 1);
  return v;
}

void GgufArray::for_each(const std::function<bool(const GgufValue&)>& f) const {
  ByteReader reader({value_.array_begin_, static_cast<std::size_t>(value_.array_bytes_)}, "array", value_.array_bytes_);
  reader.set_big_endian(value_.big_endian_);
  for (std::uint64_t i = 0; i < value_.count_; ++i)
    if (!f(GgufParser::read_value(reader, value_.elem_type_, 1))) return;
}

}  // namespace onnxq
