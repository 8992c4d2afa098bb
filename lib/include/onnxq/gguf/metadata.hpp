// Owned GGUF metadata: the values GgufValue only views, held in memory so that they can be built,
// edited and written. Values keep the wire's types exactly (an i16 stays an i16, a float keeps
// its bit pattern), so a file read into them and written back says the same.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "onnxq/gguf/file.hpp"
#include "onnxq/gguf/wire.hpp"

namespace onnxq {

class GgufOwnedValue {
 public:
  static GgufOwnedValue u8(std::uint8_t v) { return scalar(GgufType::UInt8, v); }
  static GgufOwnedValue i8(std::int8_t v) { return scalar(GgufType::Int8, static_cast<std::uint8_t>(v)); }
  static GgufOwnedValue u16(std::uint16_t v) { return scalar(GgufType::UInt16, v); }
  static GgufOwnedValue i16(std::int16_t v) { return scalar(GgufType::Int16, static_cast<std::uint16_t>(v)); }
  static GgufOwnedValue u32(std::uint32_t v) { return scalar(GgufType::UInt32, v); }
  static GgufOwnedValue i32(std::int32_t v) { return scalar(GgufType::Int32, static_cast<std::uint32_t>(v)); }
  static GgufOwnedValue u64(std::uint64_t v) { return scalar(GgufType::UInt64, v); }
  static GgufOwnedValue i64(std::int64_t v) { return scalar(GgufType::Int64, static_cast<std::uint64_t>(v)); }
  static GgufOwnedValue f32(float v);
  static GgufOwnedValue f64(double v);
  static GgufOwnedValue boolean(bool v) { return scalar(GgufType::Bool, v ? 1 : 0); }
  // A scalar of `type` from its stored bits, as GgufValue::raw_bits gives them (the bits past the
  // type's size must be zero). Throws Error(InvalidArgument) for a string or array type.
  static GgufOwnedValue scalar(GgufType type, std::uint64_t bits);
  static GgufOwnedValue string(std::string text);
  // Throws Error(InvalidArgument) when an element is not of `element_type`.
  static GgufOwnedValue array(GgufType element_type, std::vector<GgufOwnedValue> elements);
  // A copy of what the view shows, nested arrays included.
  static GgufOwnedValue from_view(const GgufValue& view);

  GgufType type() const { return type_; }
  std::uint64_t raw_bits() const { return bits_; }  // scalars
  // Each throws Error(InvalidArgument) when the type does not match.
  const std::string& text() const;
  GgufType element_type() const;
  const std::vector<GgufOwnedValue>& elements() const;

  // Same type and same stored bits (a NaN equals itself), strings and elements alike.
  bool operator==(const GgufOwnedValue&) const = default;

 private:
  GgufOwnedValue() = default;
  GgufType type_ = GgufType::UInt8;
  std::uint64_t bits_ = 0;
  std::string text_;
  GgufType element_type_ = GgufType::UInt8;
  std::vector<GgufOwnedValue> elements_;
};

struct GgufMetadataEntry {
  std::string key;
  GgufOwnedValue value;
  bool operator==(const GgufMetadataEntry&) const = default;
};

// Metadata records in file order, keys unique; edits keep the order of the others.
class GgufMetadata {
 public:
  // A copy of a parsed file's records. Throws Error(InvalidArgument) on a duplicate key.
  static GgufMetadata from_records(std::span<const GgufKeyValue> records);

  const std::vector<GgufMetadataEntry>& entries() const { return entries_; }
  std::size_t size() const { return entries_.size(); }
  const GgufOwnedValue* find(std::string_view key) const;
  // Replaces the value in its place, or appends the record when the key is new.
  void set(std::string_view key, GgufOwnedValue value);
  // False when the key is absent.
  bool remove(std::string_view key);
  // Renames in place. Throws Error(InvalidArgument) when `from` is absent or `to` is taken.
  void rename(std::string_view from, std::string_view to);

  bool operator==(const GgufMetadata&) const = default;

 private:
  std::vector<GgufMetadataEntry> entries_;
};

}  // namespace onnxq
