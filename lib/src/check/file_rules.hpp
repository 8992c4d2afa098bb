// Internal: `onnxq check` of one file: the GGUF parser's findings, and the rules check adds on top
// of them (ggml's and the specification's limits, text content, the data layout ggml demands).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "onnxq/gguf/file.hpp"
#include "report.hpp"

namespace onnxq::check_detail {

// Parses one file's bytes with every rule; `shard` gets the records read completely. False when
// a problem ended the parse before the end of the tensor infos.
bool check_file(std::span<const std::byte> bytes, const std::string& name, Report& report, GgufFile& shard);

// ggml's rules for the data section: tensors packed in tensor-info order, zeros in the padding.
void nonzero_padding(std::span<const std::byte> bytes, std::uint64_t from, std::uint64_t to, std::string_view what,
                     Report& report);
void ggml_layout_rules(const GgufFile& shard, Report& report);

// Tokenizer consistency and chat templates (after a parse that read every record).
void content_rules(const GgufFile& shard, Report& report);

// The first record of `key`, or null.
const GgufKeyValue* find_key(const GgufFile& shard, std::string_view key);

}  // namespace onnxq::check_detail
