// The GGUF wire format's facts, shared by every reader and writer of it: the magic, the versions,
// the metadata value types and their sizes, the default alignment, and the sizes of the records.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace onnxq {

// The magic "GGUF", read as a little-endian u32; gguf-py writes it byte-swapped ("FUGG") in
// big-endian files.
inline constexpr std::uint32_t kGgufMagic = 0x46554747;
inline constexpr std::uint32_t kGgufMagicSwapped = 0x47475546;
inline constexpr std::uint32_t kGgufMinVersion = 2;  // v1 had 32-bit counts
inline constexpr std::uint32_t kGgufMaxVersion = 3;
inline constexpr bool gguf_version_supported(std::uint32_t v) { return v >= kGgufMinVersion && v <= kGgufMaxVersion; }

// Where the header's fields lie: magic, version, tensor count, metadata count.
inline constexpr std::uint64_t kGgufVersionOffset = 4;
inline constexpr std::uint64_t kGgufTensorCountOffset = 8;
inline constexpr std::uint64_t kGgufMetadataCountOffset = 16;

inline constexpr std::uint64_t kGgufDefaultAlignment = 32;  // when general.alignment is absent

enum class GgufType : std::uint32_t {
  UInt8 = 0,
  Int8 = 1,
  UInt16 = 2,
  Int16 = 3,
  UInt32 = 4,
  Int32 = 5,
  Float32 = 6,
  Bool = 7,
  String = 8,
  Array = 9,
  UInt64 = 10,
  Int64 = 11,
  Float64 = 12,
};
inline constexpr GgufType kGgufLastType = GgufType::Float64;
inline constexpr bool gguf_type_valid(std::uint32_t t) { return t <= static_cast<std::uint32_t>(kGgufLastType); }
std::string_view gguf_type_name(GgufType type);                  // "u8", "i8", ..., "str", "arr"
std::optional<GgufType> gguf_type_named(std::string_view name);  // the inverse; nullopt for another name
inline constexpr bool gguf_type_is_signed(GgufType t) {
  return t == GgufType::Int8 || t == GgufType::Int16 || t == GgufType::Int32 || t == GgufType::Int64;
}
inline constexpr bool gguf_type_is_integer(GgufType t) {
  return gguf_type_is_signed(t) || t == GgufType::UInt8 || t == GgufType::UInt16 || t == GgufType::UInt32 ||
         t == GgufType::UInt64;
}

// Bytes of one scalar of `type`; 0 for strings and arrays, whose size depends on their contents.
inline constexpr std::uint64_t gguf_scalar_size(GgufType type) {
  switch (type) {
    case GgufType::UInt8:
    case GgufType::Int8:
    case GgufType::Bool: return 1;
    case GgufType::UInt16:
    case GgufType::Int16: return 2;
    case GgufType::UInt32:
    case GgufType::Int32:
    case GgufType::Float32: return 4;
    case GgufType::UInt64:
    case GgufType::Int64:
    case GgufType::Float64: return 8;
    case GgufType::String:
    case GgufType::Array: return 0;
  }
  return 0;
}

// The sizes of the records' fields.
inline constexpr std::uint64_t kGgufStringLengthBytes = 8;  // a string is a u64 length, then its bytes
inline constexpr std::uint64_t kGgufValueTypeBytes = 4;     // a value's (or array element's) type is a u32
inline constexpr std::uint64_t kGgufArrayLengthBytes = 8;
inline constexpr std::uint64_t kGgufDimsCountBytes = 4;   // a tensor's n_dims is a u32
inline constexpr std::uint64_t kGgufDimBytes = 8;         // each dimension a u64
inline constexpr std::uint64_t kGgufTensorTypeBytes = 4;  // its ggml type a u32
inline constexpr std::uint64_t kGgufDataOffsetBytes = 8;  // its data offset a u64

// The smallest records: a count that the bytes left cannot hold is refused before it is walked.
inline constexpr std::uint64_t kGgufMinKeyValueBytes = kGgufStringLengthBytes + kGgufValueTypeBytes + 1;  // a u8
inline constexpr std::uint64_t kGgufMinTensorInfoBytes =
    kGgufStringLengthBytes + kGgufDimsCountBytes + kGgufDimBytes + kGgufTensorTypeBytes + kGgufDataOffsetBytes;
inline constexpr std::uint64_t kGgufMinStringBytes = kGgufStringLengthBytes;
inline constexpr std::uint64_t kGgufMinArrayBytes = kGgufValueTypeBytes + kGgufArrayLengthBytes;

}  // namespace onnxq
