// The rule book of a GGUF file, each rule stated once: what a key, a tensor name, general.alignment,
// a tensor's shape and size and a split model's keys must be. The parser refuses a file that breaks
// a reader's rule; the writer refuses to write one that breaks any rule here, so that every file it
// writes opens in onnxq's reader and in ggml's; `onnxq check` reports the same rules. The numbers
// themselves are in limits.hpp; the split.* keys and their types in split.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "onnxq/formats/format.hpp"
#include "onnxq/gguf/limits.hpp"
#include "onnxq/gguf/split.hpp"
#include "onnxq/gguf/wire.hpp"

namespace onnxq {

// A broken rule: `onnxq check`'s finding code and the one-line reason a reader or writer gives.
struct GgufRuleBreak {
  std::string_view code;
  std::string reason;
};

// Metadata keys. `index` numbers the record (its key may be empty or unprintable).
// The reader's rule: a key has at least one byte.
std::optional<GgufRuleBreak> gguf_empty_key_rule(std::uint64_t index, std::string_view key);
// The specification's: at most kGgufSpecMaxKeyBytes bytes (ggml's reader takes longer ones; the writer does not write
// them).
std::optional<GgufRuleBreak> gguf_key_length_rule(std::string_view key);
// The specification's: every byte of a key is ASCII (ggml's reader and onnxq's take others, so that
// such a file can be read and its key renamed or removed; the writer does not write them). Code
// "non-ascii-key"; the reason names the key escaped (\xNN) and the first byte that is not ASCII.
std::optional<GgufRuleBreak> gguf_key_ascii_rule(std::uint64_t index, std::string_view key);
// The position of the first byte of `key` that is not ASCII (0x80 or more), if any.
std::optional<std::size_t> gguf_first_non_ascii(std::string_view key);
// ggml's reader: strings of at most kGgmlMaxStringBytes, arrays of at most kGgmlMaxArrayElements.
std::optional<GgufRuleBreak> gguf_string_length_rule(std::string_view key, std::uint64_t bytes);
std::optional<GgufRuleBreak> gguf_array_length_rule(std::string_view key, std::uint64_t elements);
// ggml's reader refuses an array whose elements are arrays (the specification and onnxq's reader take
// them, so the writer refuses to write one). Code "nested-array".
std::optional<GgufRuleBreak> gguf_nested_array_rule(std::string_view key, GgufType element_type);

// general.alignment: a u32 power of two, at most kGgufMaxAlignment. Codes "alignment-type",
// "bad-alignment", "alignment-too-large".
std::optional<GgufRuleBreak> gguf_alignment_rule(GgufType type, std::uint64_t value);

// A tensor name of at most kGgufMaxTensorNameBytes bytes (ggml's GGML_MAX_NAME with its NUL).
// `who` names the tensor in the reason ("tensor 5", "tensor 'x'").
std::optional<GgufRuleBreak> gguf_tensor_name_rule(std::string_view who, std::string_view name);

// A tensor's element count (the product of `ne`), nullopt past kGgufMaxTensorElements or 64 bits.
std::optional<std::uint64_t> gguf_element_count(std::span<const std::uint64_t> ne);
// The bytes of ne0 / block_elements whole blocks times ne1 * ne2 * ..., as ggml sizes a tensor
// (a partial last block of a row is dropped: whether ne0 is a whole number of blocks is
// gguf_whole_blocks'); nullopt past kGgufMaxTensorBytes or 64 bits.
std::optional<std::uint64_t> gguf_blocks_bytes(const BlockFormat& format, std::span<const std::uint64_t> ne);
inline bool gguf_whole_blocks(const BlockFormat& format, std::span<const std::uint64_t> ne) {
  return !ne.empty() && ne[0] % format.block_elements == 0;
}
// A tensor of `format` and shape `ne` as a writer may write it: 1..kGgufMaxDims dimensions, each at
// most INT64_MAX, its element count and byte size within the limits, ne0 a whole number of blocks.
// Returns its byte size, or the broken rule naming the tensor (`who`).
struct GgufTensorSize {
  std::optional<std::uint64_t> bytes;
  std::string problem;  // empty when bytes is set
};
// A tensor of an unknown `format` (null) gets no byte size and no problem unless its type is one
// ggml removed.
GgufTensorSize gguf_tensor_size(std::string_view who, std::uint32_t ggml_type, const BlockFormat* format,
                                std::span<const std::uint64_t> ne);

// `s` in single quotes, control characters shown as '?': how reasons quote a key or name.
std::string gguf_quoted(std::string_view s);

}  // namespace onnxq
