// GgufOwnedValue / GgufMetadata: owned, editable copies of metadata.
#include "onnxq/gguf/metadata.hpp"

#include <algorithm>
#include <bit>

#include "onnxq/core/error.hpp"

namespace onnxq {

namespace {

[[noreturn]] void not_a(GgufType have, std::string_view want) {
  invalid_argument("metadata value has type " + std::string(gguf_type_name(have)) + ", expected " + std::string(want));
}

}  // namespace

GgufOwnedValue GgufOwnedValue::f32(float v) { return scalar(GgufType::Float32, std::bit_cast<std::uint32_t>(v)); }
GgufOwnedValue GgufOwnedValue::f64(double v) { return scalar(GgufType::Float64, std::bit_cast<std::uint64_t>(v)); }

GgufOwnedValue GgufOwnedValue::scalar(GgufType type, std::uint64_t bits) {
  const std::uint64_t size = gguf_scalar_size(type);
  if (size == 0) invalid_argument("metadata type " + std::string(gguf_type_name(type)) + " is not a scalar");
  if (size < 8 && (bits >> (8 * size)) != 0)
    invalid_argument("bits " + std::to_string(bits) + " do not fit a " + std::string(gguf_type_name(type)));
  GgufOwnedValue v;
  v.type_ = type;
  v.bits_ = bits;
  return v;
}

GgufOwnedValue GgufOwnedValue::string(std::string text) {
  GgufOwnedValue v;
  v.type_ = GgufType::String;
  v.text_ = std::move(text);
  return v;
}

GgufOwnedValue GgufOwnedValue::array(GgufType element_type, std::vector<GgufOwnedValue> elements) {
  for (const GgufOwnedValue& e : elements)
    if (e.type_ != element_type)
      invalid_argument("array of " + std::string(gguf_type_name(element_type)) + " given an element of type " +
                       std::string(gguf_type_name(e.type_)));
  GgufOwnedValue v;
  v.type_ = GgufType::Array;
  v.element_type_ = element_type;
  v.elements_ = std::move(elements);
  return v;
}

GgufOwnedValue GgufOwnedValue::from_view(const GgufValue& view) {
  switch (view.type()) {
    case GgufType::String: return string(std::string(view.as_string()));
    case GgufType::Array: {
      const GgufArray a = view.as_array();
      std::vector<GgufOwnedValue> elements;
      elements.reserve(static_cast<std::size_t>(a.size()));
      a.for_each([&](const GgufValue& e) {
        elements.push_back(from_view(e));
        return true;
      });
      return array(a.element_type(), std::move(elements));
    }
    default: return scalar(view.type(), view.raw_bits());
  }
}

const std::string& GgufOwnedValue::text() const {
  if (type_ != GgufType::String) not_a(type_, "str");
  return text_;
}

GgufType GgufOwnedValue::element_type() const {
  if (type_ != GgufType::Array) not_a(type_, "arr");
  return element_type_;
}

const std::vector<GgufOwnedValue>& GgufOwnedValue::elements() const {
  if (type_ != GgufType::Array) not_a(type_, "arr");
  return elements_;
}

GgufMetadata GgufMetadata::from_records(std::span<const GgufKeyValue> records) {
  GgufMetadata m;
  m.entries_.reserve(records.size());
  for (const GgufKeyValue& kv : records) {
    if (m.find(kv.key)) invalid_argument("duplicate metadata key '" + std::string(kv.key) + "'");
    m.entries_.push_back({std::string(kv.key), GgufOwnedValue::from_view(kv.value)});
  }
  return m;
}

const GgufOwnedValue* GgufMetadata::find(std::string_view key) const {
  for (const GgufMetadataEntry& e : entries_)
    if (e.key == key) return &e.value;
  return nullptr;
}

void GgufMetadata::set(std::string_view key, GgufOwnedValue value) {
  for (GgufMetadataEntry& e : entries_)
    if (e.key == key) {
      e.value = std::move(value);
      return;
    }
  entries_.push_back({std::string(key), std::move(value)});
}

bool GgufMetadata::remove(std::string_view key) {
  const auto it = std::find_if(entries_.begin(), entries_.end(), [&](const auto& e) { return e.key == key; });
  if (it == entries_.end()) return false;
  entries_.erase(it);
  return true;
}

void GgufMetadata::rename(std::string_view from, std::string_view to) {
  if (from == to && find(from)) return;
  if (find(to)) invalid_argument("metadata key '" + std::string(to) + "' already exists");
  for (GgufMetadataEntry& e : entries_)
    if (e.key == from) {
      e.key = std::string(to);
      return;
    }
  invalid_argument("no metadata key '" + std::string(from) + "'");
}

}  // namespace onnxq
