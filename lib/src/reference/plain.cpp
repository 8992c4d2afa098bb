// Plain GGUF tensor types (F32, F16, BF16, F64, I8..I64) to a requested dtype.
// Each value is rounded once: conversions to 16-bit floats from wider sources go
// through a round-to-odd float32, which makes the final RNE step exact (no double rounding).
#include "reference/plain.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "onnxq/core/half.hpp"

namespace onnxq::reference {
namespace {

template <class T>
inline T load(const std::uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // little-endian host, unaligned source
  return v;
}

// |i| rounded to float32 by truncation with a sticky last bit (round to odd).
inline float int64_to_float_round_odd(std::int64_t i) {
  const std::uint64_t mag = i < 0 ? 0 - static_cast<std::uint64_t>(i) : static_cast<std::uint64_t>(i);
  float f;
  if (mag < (1ull << 24)) {
    f = static_cast<float>(mag);
  } else {
    const int shift = 40 - std::countl_zero(mag);  // keep the top 24 bits
    std::uint64_t kept = mag >> shift;
    if (mag & ((1ull << shift) - 1)) kept |= 1;
    f = std::ldexp(static_cast<float>(kept), shift);
  }
  return i < 0 ? -f : f;
}

// One source value, as the three float results it can feed.
struct Value {
  float as_f32;   // correctly rounded to float32
  float odd_f32;  // round-to-odd float32, for the 16-bit targets
  double as_f64;  // correctly rounded to float64
};

template <class T>
Value value_of(const std::uint8_t* p) {
  const T v = load<T>(p);
  if constexpr (std::is_same_v<T, double>) {
    return {static_cast<float>(v), double_to_float_round_odd(v), v};
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    return {static_cast<float>(v), int64_to_float_round_odd(v), static_cast<double>(v)};
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    return {static_cast<float>(v), double_to_float_round_odd(static_cast<double>(v)), static_cast<double>(v)};
  } else {  // int8, int16: exact in float32
    const float f = static_cast<float>(v);
    return {f, f, static_cast<double>(v)};
  }
}

template <class T>
void convert_wide(const std::uint8_t* src, std::size_t n, DType out, void* dst) {
  for (std::size_t i = 0; i < n; ++i) {
    const Value v = value_of<T>(src + i * sizeof(T));
    switch (out) {
      case DType::Float: static_cast<float*>(dst)[i] = v.as_f32; break;
      case DType::Double: static_cast<double*>(dst)[i] = v.as_f64; break;
      case DType::Float16: static_cast<std::uint16_t*>(dst)[i] = float_to_half(v.odd_f32); break;
      case DType::BFloat16: static_cast<std::uint16_t*>(dst)[i] = float_to_bf16(v.odd_f32); break;
      default: break;
    }
  }
}

// Sources whose values are exact in float32 (F32, F16, BF16).
template <float (*ToFloat)(const std::uint8_t*), std::size_t Size>
void convert_narrow(const std::uint8_t* src, std::size_t n, DType out, void* dst) {
  for (std::size_t i = 0; i < n; ++i) {
    const float f = ToFloat(src + i * Size);
    switch (out) {
      case DType::Float: static_cast<float*>(dst)[i] = f; break;
      case DType::Double: static_cast<double*>(dst)[i] = static_cast<double>(f); break;
      case DType::Float16: static_cast<std::uint16_t*>(dst)[i] = float_to_half(f); break;
      case DType::BFloat16: static_cast<std::uint16_t*>(dst)[i] = float_to_bf16(f); break;
      default: break;
    }
  }
}

float f32_at(const std::uint8_t* p) { return load<float>(p); }
float f16_at(const std::uint8_t* p) { return half_to_float(load<std::uint16_t>(p)); }
float bf16_at(const std::uint8_t* p) { return bf16_to_float(load<std::uint16_t>(p)); }

}  // namespace

void convert_plain(DType source, const std::uint8_t* src, std::size_t n, DType out, void* dst) {
  if (source == out) {  // same type: copy the bit patterns (keeps NaN payloads)
    std::memcpy(dst, src, dtype_storage_bytes(source, n));
    return;
  }
  switch (source) {
    case DType::Float: return convert_narrow<f32_at, 4>(src, n, out, dst);
    case DType::Float16: return convert_narrow<f16_at, 2>(src, n, out, dst);
    case DType::BFloat16: return convert_narrow<bf16_at, 2>(src, n, out, dst);
    case DType::Double: return convert_wide<double>(src, n, out, dst);
    case DType::Int8: return convert_wide<std::int8_t>(src, n, out, dst);
    case DType::Int16: return convert_wide<std::int16_t>(src, n, out, dst);
    case DType::Int32: return convert_wide<std::int32_t>(src, n, out, dst);
    case DType::Int64: return convert_wide<std::int64_t>(src, n, out, dst);
    default: return;  // callers validate first
  }
}

}  // namespace onnxq::reference
