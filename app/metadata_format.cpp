#include "metadata_format.hpp"

#include <charconv>
#include <cmath>

#include "text_table.hpp"

namespace onnxq::cli {
namespace {

// Shortest text that reads back to the same value.
template <class F>
std::string float_text(F v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

constexpr std::size_t kMaxPreviewString = 80;

// Escaped for one line (control bytes, backslashes) and for the quotes around it ("\"").
std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : escape_for_terminal(s)) {
    if (c == '"') out += '\\';
    out += c;
  }
  out += '"';
  return out;
}

std::string quoted_preview(std::string_view s, bool shorten) {
  if (shorten && s.size() > kMaxPreviewString) {
    std::string out = quoted(s.substr(0, kMaxPreviewString));
    out.insert(out.size() - 1, "...");
    return out;
  }
  return quoted(s);
}

// quote_strings: 0 raw, 1 quoted, 2 quoted and shortened.
std::string scalar_text(const GgufValue& v, int quote_strings) {
  switch (v.type()) {
    case GgufType::Float32: return float_text(v.as_f32());
    case GgufType::Float64: return float_text(v.as_f64());
    case GgufType::Bool: return v.as_bool() ? "true" : "false";
    case GgufType::String:
      return quote_strings ? quoted_preview(v.as_string(), quote_strings == 2) : std::string(v.as_string());
    case GgufType::UInt8:
    case GgufType::UInt16:
    case GgufType::UInt32:
    case GgufType::UInt64: return std::to_string(v.as_u64());
    default: return std::to_string(v.as_i64());
  }
}

}  // namespace

std::string value_type_text(const GgufValue& value) {
  // (an array of arrays says "arr[arr,N]": its inner arrays may differ in type and length)
  if (value.type() != GgufType::Array) return std::string(gguf_type_name(value.type()));
  const GgufArray a = value.as_array();
  return "arr[" + std::string(gguf_type_name(a.element_type())) + "," + std::to_string(a.size()) + "]";
}

std::string value_to_text(const GgufValue& value, std::size_t max_items) {
  if (value.type() != GgufType::Array) return scalar_text(value, max_items == 0 ? 1 : 2);
  const GgufArray a = value.as_array();
  std::string out = "[";
  std::size_t shown = 0;
  a.for_each([&](const GgufValue& item) {
    if (max_items != 0 && shown == max_items) {
      out += ", ...";
      return false;
    }
    if (shown) out += ", ";
    out += value_to_text(item, max_items);
    ++shown;
    return true;
  });
  return out + "]";
}

std::string value_to_raw(const GgufValue& value, bool terminal) {
  if (value.type() != GgufType::Array) {
    const std::string text = scalar_text(value, 0);
    return terminal ? escape_for_terminal(text) : text;
  }
  std::string out;
  bool first = true;
  value.as_array().for_each([&](const GgufValue& item) {
    if (!first) out += '\n';
    first = false;
    out += item.type() == GgufType::Array ? value_to_text(item, 0) : escape_for_terminal(scalar_text(item, 0));
    return true;
  });
  return out;
}

Json array_type_json(const GgufArray& array) {
  Json out = {{"element_type", gguf_type_name(array.element_type())}, {"count", array.size()}};
  if (array.element_type() != GgufType::Array) return out;
  Json elements = Json::array();
  array.for_each([&](const GgufValue& item) {
    elements.push_back(array_type_json(item.as_array()));
    return true;
  });
  out["elements"] = std::move(elements);
  return out;
}

Json value_to_json(const GgufValue& v) {
  switch (v.type()) {
    case GgufType::Float32:
    case GgufType::Float64: {
      const double d = v.as_f64();
      if (!std::isfinite(d)) return float_text(d);
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
        items.push_back(value_to_json(item));
        return true;
      });
      return items;
    }
    default: return v.as_i64();
  }
}

std::string dump_json(const Json& json) { return json.dump(2, ' ', false, Json::error_handler_t::replace); }

}  // namespace onnxq::cli
