// The GGUF rule book: each rule and its one-line reason, for the parser, the writer and check.
#include "onnxq/gguf/rules.hpp"

#include <bit>

#include "onnxq/core/checked.hpp"
#include "onnxq/core/text_escape.hpp"

namespace onnxq {

std::string gguf_quoted(std::string_view s) {
  std::string out = "'";
  for (char c : s) out += (static_cast<unsigned char>(c) < 0x20) ? '?' : c;
  return out + "'";
}

std::optional<GgufRuleBreak> gguf_empty_key_rule(std::uint64_t index, std::string_view key) {
  if (!key.empty()) return std::nullopt;
  return GgufRuleBreak{"empty-key", "metadata key " + std::to_string(index) + " is empty, expected at least 1 byte"};
}

std::optional<GgufRuleBreak> gguf_key_length_rule(std::string_view key) {
  if (key.size() <= kGgufSpecMaxKeyBytes) return std::nullopt;
  return GgufRuleBreak{"key-too-long", "metadata key " + gguf_quoted(key.substr(0, 32)) + "... is " +
                                           std::to_string(key.size()) +
                                           " bytes long, more than the GGUF specification's limit of " +
                                           std::to_string(kGgufSpecMaxKeyBytes)};
}

std::optional<std::size_t> gguf_first_non_ascii(std::string_view key) {
  for (std::size_t i = 0; i < key.size(); ++i)
    if (static_cast<unsigned char>(key[i]) >= 0x80) return i;
  return std::nullopt;
}

std::optional<GgufRuleBreak> gguf_key_ascii_rule(std::uint64_t index, std::string_view key) {
  const auto at = gguf_first_non_ascii(key);
  if (!at) return std::nullopt;
  return GgufRuleBreak{"non-ascii-key", "metadata key " + std::to_string(index) + " '" + escape_bytes(key) +
                                            "' is not ASCII (byte " + std::to_string(*at) +
                                            "), as the GGUF specification requires"};
}

std::optional<GgufRuleBreak> gguf_string_length_rule(std::string_view key, std::uint64_t bytes) {
  if (bytes <= kGgmlMaxStringBytes) return std::nullopt;
  return GgufRuleBreak{"string-too-long", "metadata key " + gguf_quoted(key) + " holds a string of " +
                                              std::to_string(bytes) + " bytes, more than ggml's limit of " +
                                              std::to_string(kGgmlMaxStringBytes)};
}

std::optional<GgufRuleBreak> gguf_array_length_rule(std::string_view key, std::uint64_t elements) {
  if (elements <= kGgmlMaxArrayElements) return std::nullopt;
  return GgufRuleBreak{"array-too-long", "metadata key " + gguf_quoted(key) + " holds an array of " +
                                             std::to_string(elements) + " elements, more than ggml's limit of " +
                                             std::to_string(kGgmlMaxArrayElements)};
}

std::optional<GgufRuleBreak> gguf_nested_array_rule(std::string_view key, GgufType element_type) {
  if (element_type != GgufType::Array) return std::nullopt;
  return GgufRuleBreak{"nested-array",
                       "metadata key " + gguf_quoted(key) + " holds an array of arrays, which ggml's reader refuses"};
}

std::optional<GgufRuleBreak> gguf_alignment_rule(GgufType type, std::uint64_t value) {
  if (type != GgufType::UInt32)
    return GgufRuleBreak{"alignment-type",
                         "general.alignment has type " + std::string(gguf_type_name(type)) + ", expected u32"};
  if (!std::has_single_bit(value))
    return GgufRuleBreak{"bad-alignment",
                         "general.alignment is " + std::to_string(value) + ", expected a power of two"};
  if (value > kGgufMaxAlignment)
    return GgufRuleBreak{"alignment-too-large", "general.alignment is " + std::to_string(value) +
                                                    ", more than ggml's limit of " + std::to_string(kGgufMaxAlignment)};
  return std::nullopt;
}

std::optional<GgufRuleBreak> gguf_tensor_name_rule(std::string_view who, std::string_view name) {
  if (name.size() <= kGgufMaxTensorNameBytes) return std::nullopt;
  return GgufRuleBreak{"tensor-name-too-long", std::string(who) + " name is " + std::to_string(name.size()) +
                                                   " bytes long, more than ggml's limit of " +
                                                   std::to_string(kGgufMaxTensorNameBytes) +
                                                   " (GGML_MAX_NAME 64 with its NUL)"};
}

std::optional<std::uint64_t> gguf_element_count(std::span<const std::uint64_t> ne) {
  std::optional<std::uint64_t> count = 1;
  for (const std::uint64_t d : ne)
    if (count) count = checked_mul(*count, d);
  if (!count || *count > kGgufMaxTensorElements) return std::nullopt;
  return count;
}

std::optional<std::uint64_t> gguf_blocks_bytes(const BlockFormat& format, std::span<const std::uint64_t> ne) {
  if (ne.empty()) return std::nullopt;
  std::optional<std::uint64_t> size = checked_mul(ne[0] / format.block_elements, format.block_bytes);
  for (std::size_t d = 1; d < ne.size() && size; ++d) size = checked_mul(*size, ne[d]);
  if (!size || *size > kGgufMaxTensorBytes) return std::nullopt;
  return size;
}

GgufTensorSize gguf_tensor_size(std::string_view who, std::uint32_t ggml_type, const BlockFormat* format,
                                std::span<const std::uint64_t> ne) {
  const std::string tensor(who);
  if (ne.empty() || ne.size() > kGgufMaxDims)
    return {std::nullopt,
            tensor + " has " + std::to_string(ne.size()) + " dimensions, expected 1.." + std::to_string(kGgufMaxDims)};
  for (const std::uint64_t d : ne)
    if (d > static_cast<std::uint64_t>(INT64_MAX))
      return {std::nullopt, tensor + " has dimension " + std::to_string(d) + ", more than INT64_MAX"};
  if (!gguf_element_count(ne)) return {std::nullopt, tensor + " element count overflows 63 bits"};
  if (!format) {
    if (is_removed_ggml_type(ggml_type))
      return {std::nullopt, tensor + " has removed ggml type " + std::to_string(ggml_type) +
                                ", expected one of the types `onnxq formats` lists"};
    return {};  // a type onnxq does not know: its size is what its source stores
  }
  if (!gguf_whole_blocks(*format, ne))
    return {std::nullopt, tensor + " has ne0 = " + std::to_string(ne[0]) + ", expected a multiple of " +
                              std::to_string(format->block_elements) + " for " + std::string(format->gguf_name)};
  const auto bytes = gguf_blocks_bytes(*format, ne);
  if (!bytes) return {std::nullopt, tensor + " byte size overflows 63 bits"};
  return {bytes, {}};
}

}  // namespace onnxq
