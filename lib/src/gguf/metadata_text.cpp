// GGUF metadata values as text and as JSON.
#include "onnxq/gguf/metadata_text.hpp"

#include <charconv>
#include <cmath>

#include "json_text.hpp"
#include "onnxq/core/text_escape.hpp"

namespace onnxq {
namespace {

using json_detail::Json;

constexpr std::size_t kMaxPreviewString = 80;

// Shortest text that reads back to the same value.
template <class F>
std::string shortest_float_text(F v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

// Escaped for one line (control bytes, backslashes) and for the quotes around it ("\"").
std::string quoted_line(std::string_view s) {
  std::string out = "\"";
  for (char c : escape_controls(s)) {
    if (c == '"') out += '\\';
    out += c;
  }
  out += '"';
  return out;
}

std::string preview_quoted(std::string_view s, bool shorten) {
  if (shorten && s.size() > kMaxPreviewString) {
    std::string out = quoted_line(s.substr(0, kMaxPreviewString));
    out.insert(out.size() - 1, "...");
    return out;
  }
  return quoted_line(s);
}

enum class Strings { Raw, Quoted, QuotedShort };

std::string scalar_value_text(const GgufValue& v, Strings strings) {
  switch (v.type()) {
    case GgufType::Float32: return shortest_float_text(v.as_f32());
    case GgufType::Float64: return shortest_float_text(v.as_f64());
    case GgufType::Bool: return v.as_bool() ? "true" : "false";
    case GgufType::String:
      return strings == Strings::Raw ? std::string(v.as_string())
                                     : preview_quoted(v.as_string(), strings == Strings::QuotedShort);
    case GgufType::UInt8:
    case GgufType::UInt16:
    case GgufType::UInt32:
    case GgufType::UInt64: return std::to_string(v.as_u64());
    default: return std::to_string(v.as_i64());
  }
}

Json array_types_json(const GgufArray& array) {
  Json out = {{"element_type", gguf_type_name(array.element_type())}, {"count", array.size()}};
  if (array.element_type() != GgufType::Array) return out;
  Json elements = Json::array();
  array.for_each([&](const GgufValue& item) {
    elements.push_back(array_types_json(item.as_array()));
    return true;
  });
  out["elements"] = std::move(elements);
  return out;
}

Json metadata_value_json(const GgufValue& v) {
  switch (v.type()) {
    case GgufType::Float32:
    case GgufType::Float64: {
      const double d = v.as_f64();
      if (!std::isfinite(d)) return shortest_float_text(d);
      return d;
    }
    case GgufType::Bool: return v.as_bool();
    case GgufType::String: return std::string(v.as_string());
    case GgufType::UInt8:
    case GgufType::UInt16:
    case GgufType::UInt32:
    case GgufType::UInt64: return v.as_u64();
    case GgufType::Array: {
      Json items = Json::array();
      v.as_array().for_each([&](const GgufValue& item) {
        items.push_back(metadata_value_json(item));
        return true;
      });
      return items;
    }
    default: return v.as_i64();
  }
}

}  // namespace

std::string gguf_value_type_text(const GgufValue& value) {
  // (an array of arrays says "arr[arr,N]": its inner arrays may differ in type and length)
  if (value.type() != GgufType::Array) return std::string(gguf_type_name(value.type()));
  const GgufArray a = value.as_array();
  return "arr[" + std::string(gguf_type_name(a.element_type())) + "," + std::to_string(a.size()) + "]";
}

std::string gguf_value_text(const GgufValue& value, std::size_t max_items) {
  if (value.type() != GgufType::Array)
    return scalar_value_text(value, max_items == 0 ? Strings::Quoted : Strings::QuotedShort);
  std::string out = "[";
  std::size_t shown = 0;
  value.as_array().for_each([&](const GgufValue& item) {
    if (max_items != 0 && shown == max_items) {
      out += ", ...";
      return false;
    }
    if (shown) out += ", ";
    out += gguf_value_text(item, max_items);
    ++shown;
    return true;
  });
  return out + "]";
}

std::string gguf_value_raw(const GgufValue& value, bool escape) {
  if (value.type() != GgufType::Array) {
    const std::string text = scalar_value_text(value, Strings::Raw);
    return escape ? escape_controls(text) : text;
  }
  std::string out;
  bool first = true;
  value.as_array().for_each([&](const GgufValue& item) {
    if (!first) out += '\n';
    first = false;
    out += item.type() == GgufType::Array ? gguf_value_text(item, 0)
                                          : escape_controls(scalar_value_text(item, Strings::Raw));
    return true;
  });
  return out;
}

std::string gguf_metadata_json(std::span<const GgufKeyValue* const> records, bool by_key) {
  Json out = by_key ? Json::object() : Json::array();
  for (const GgufKeyValue* kv : records) {
    if (by_key) {
      out[std::string(kv->key)] = metadata_value_json(kv->value);
      continue;
    }
    Json entry = {{"key", kv->key}, {"type", gguf_type_name(kv->value.type())}};
    if (kv->value.type() == GgufType::Array) entry.update(array_types_json(kv->value.as_array()));
    entry["value"] = metadata_value_json(kv->value);
    out.push_back(std::move(entry));
  }
  return json_detail::json_text(out);
}

}  // namespace onnxq
