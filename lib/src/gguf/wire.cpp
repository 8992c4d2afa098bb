// The names of the GGUF value types, as `onnxq info` and the messages print them.
#include "onnxq/gguf/wire.hpp"

namespace onnxq {

std::string_view gguf_type_name(GgufType type) {
  switch (type) {
    case GgufType::UInt8: return "u8";
    case GgufType::Int8: return "i8";
    case GgufType::UInt16: return "u16";
    case GgufType::Int16: return "i16";
    case GgufType::UInt32: return "u32";
    case GgufType::Int32: return "i32";
    case GgufType::Float32: return "f32";
    case GgufType::Bool: return "bool";
    case GgufType::String: return "str";
    case GgufType::Array: return "arr";
    case GgufType::UInt64: return "u64";
    case GgufType::Int64: return "i64";
    case GgufType::Float64: return "f64";
  }
  return "?";
}

std::optional<GgufType> gguf_type_named(std::string_view name) {
  for (std::uint32_t t = 0; gguf_type_valid(t); ++t)
    if (gguf_type_name(static_cast<GgufType>(t)) == name) return static_cast<GgufType>(t);
  return std::nullopt;
}

}  // namespace onnxq
