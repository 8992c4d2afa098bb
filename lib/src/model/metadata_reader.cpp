#include "metadata_reader.hpp"

namespace onnxq::model_detail {
namespace {

std::string type_text(const GgufValue& v) {
  if (v.type() != GgufType::Array) return std::string(gguf_type_name(v.type()));
  return "array of " + std::string(gguf_type_name(v.as_array().element_type()));
}

bool is_signed_negative(const GgufValue& v) {
  switch (v.type()) {
    case GgufType::Int8:
    case GgufType::Int16:
    case GgufType::Int32:
    case GgufType::Int64: return v.as_i64() < 0;
    default: return false;
  }
}

}  // namespace

void MetadataReader::wrong_type(std::string_view key, const GgufValue& value, std::string_view expected) const {
  note(std::string(key) + " is " + type_text(value) + ", expected " + std::string(expected) + "; ignored");
}

std::optional<std::uint64_t> MetadataReader::count(std::string_view key) const {
  const GgufValue* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_integer() || is_signed_negative(*v)) {
    wrong_type(key, *v, "a non-negative integer");
    return std::nullopt;
  }
  return v->as_u64();
}

std::optional<std::int64_t> MetadataReader::integer(std::string_view key) const {
  const GgufValue* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_integer() || (v->type() == GgufType::UInt64 && v->as_u64() > static_cast<std::uint64_t>(INT64_MAX))) {
    wrong_type(key, *v, "an integer");
    return std::nullopt;
  }
  return v->as_i64();
}

std::optional<double> MetadataReader::number(std::string_view key) const {
  const GgufValue* v = find(key);
  if (!v) return std::nullopt;
  if (v->type() == GgufType::Float32 || v->type() == GgufType::Float64) return v->as_f64();
  if (v->is_integer())
    return is_signed_negative(*v) ? static_cast<double>(v->as_i64()) : static_cast<double>(v->as_u64());
  wrong_type(key, *v, "a number");
  return std::nullopt;
}

std::optional<std::string> MetadataReader::text(std::string_view key) const {
  const GgufValue* v = find(key);
  if (!v) return std::nullopt;
  if (v->type() != GgufType::String) {
    wrong_type(key, *v, "a string");
    return std::nullopt;
  }
  return std::string(v->as_string());
}

std::optional<bool> MetadataReader::flag(std::string_view key) const {
  const GgufValue* v = find(key);
  if (!v) return std::nullopt;
  if (v->type() == GgufType::Bool) return v->as_bool();
  if (v->is_integer()) return v->as_i64() != 0;
  wrong_type(key, *v, "a bool");
  return std::nullopt;
}

std::optional<std::uint64_t> MetadataReader::array_size(std::string_view key) const {
  const GgufValue* v = find(key);
  if (!v) return std::nullopt;
  if (v->type() != GgufType::Array) {
    wrong_type(key, *v, "an array");
    return std::nullopt;
  }
  return v->as_array().size();
}

std::optional<MetadataReader::LayerArray> MetadataReader::per_layer(std::string_view key, std::uint64_t layers) const {
  const GgufValue* v = find(key);
  if (!v) return std::nullopt;
  if (v->type() != GgufType::Array) {
    const std::optional<std::uint64_t> one = count(key);
    if (!one) return std::nullopt;
    return LayerArray{{*one}, false};
  }
  const GgufArray a = v->as_array();
  if (!a.empty() && !a.at(0).is_integer()) {
    wrong_type(key, *v, "a non-negative integer or an array of them");
    return std::nullopt;
  }
  if (a.size() != layers)
    note(std::string(key) + " has " + std::to_string(a.size()) + " entries for " + std::to_string(layers) +
         " layers; missing entries read as 0");
  LayerArray out{std::vector<std::uint64_t>(layers, 0), true};
  bool negative = false;
  std::uint64_t i = 0;
  a.for_each([&](const GgufValue& item) {
    if (i >= layers) return false;
    if (is_signed_negative(item))
      negative = true;
    else
      out.values[i] = item.as_u64();
    ++i;
    return true;
  });
  if (negative) note(std::string(key) + " has negative entries; read as 0");
  return out;
}

std::optional<std::vector<bool>> MetadataReader::layer_flags(std::string_view key, std::uint64_t layers) const {
  const GgufValue* v = find(key);
  if (!v || v->type() != GgufType::Array) return std::nullopt;
  const GgufArray a = v->as_array();
  if (a.element_type() != GgufType::Bool && !a.empty() && !a.at(0).is_integer()) {
    wrong_type(key, *v, "an array of bools");
    return std::nullopt;
  }
  if (a.size() != layers)
    note(std::string(key) + " has " + std::to_string(a.size()) + " entries for " + std::to_string(layers) +
         " layers; missing entries read as false");
  std::vector<bool> out(layers, false);
  std::uint64_t i = 0;
  a.for_each([&](const GgufValue& item) {
    if (i >= layers) return false;
    out[i++] = item.type() == GgufType::Bool ? item.as_bool() : item.is_integer() && item.as_i64() != 0;
    return true;
  });
  return out;
}

}  // namespace onnxq::model_detail
