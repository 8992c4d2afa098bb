// Rules about what the metadata says, not how it is stored: tokenizer arrays and the embedding
// that must agree, and chat templates that reach Python internals.
#include <string>

#include "file_rules.hpp"

namespace onnxq::check_detail {
namespace {

bool is_array(const GgufKeyValue* kv) { return kv && kv->value.type() == GgufType::Array; }

bool is_negative(const GgufValue& v) {
  switch (v.type()) {
    case GgufType::Int8:
    case GgufType::Int16:
    case GgufType::Int32:
    case GgufType::Int64: return v.as_i64() < 0;
    default: return false;
  }
}

void tokenizer_rules(const GgufFile& shard, Report& report) {
  const GgufKeyValue* tokens = find_key(shard, "tokenizer.ggml.tokens");
  if (!is_array(tokens)) return;
  const std::uint64_t n_vocab = tokens->value.as_array().size();
  for (const char* other : {"tokenizer.ggml.scores", "tokenizer.ggml.token_type"}) {
    const GgufKeyValue* kv = find_key(shard, other);
    if (is_array(kv) && kv->value.as_array().size() != n_vocab)
      report
          .warning("tokenizer-lengths", kv->offset,
                   "holds " + std::to_string(kv->value.as_array().size()) +
                       " entries but tokenizer.ggml.tokens holds " + std::to_string(n_vocab) +
                       ": a loader indexing one by the other reads out of bounds")
          .key = kv->key;
  }
  for (const TensorInfo& t : shard.tensors)
    if (t.name == "token_embd.weight" && t.ne.size() >= 2 && t.ne[1] != n_vocab)
      report
          .warning("vocab-size", t.info_offset,
                   "token_embd.weight has " + std::to_string(t.ne[1]) + " rows but the vocabulary has " +
                       std::to_string(n_vocab) + " tokens")
          .tensor = t.name;
  const GgufKeyValue* arch = find_key(shard, "general.architecture");
  if (arch && arch->value.type() == GgufType::String) {
    const std::string key = std::string(arch->value.as_string()) + ".vocab_size";
    if (const GgufKeyValue* kv = find_key(shard, key); kv && kv->value.is_integer() && kv->value.raw_bits() != n_vocab)
      report
          .warning("vocab-size", kv->offset,
                   "says " + std::to_string(kv->value.raw_bits()) + " but tokenizer.ggml.tokens holds " +
                       std::to_string(n_vocab) + " tokens")
          .key = kv->key;
  }
  // Special-token ids index the vocabulary.
  for (const GgufKeyValue& kv : shard.metadata) {
    if (!kv.key.starts_with("tokenizer.ggml.") || !kv.key.ends_with("_token_id") || !kv.value.is_integer()) continue;
    if (is_negative(kv.value)) continue;  // -1 conventionally means "none"
    if (kv.value.raw_bits() >= n_vocab)
      report
          .warning("token-id-range", kv.offset,
                   "token id " + std::to_string(kv.value.raw_bits()) + " is outside the vocabulary of " +
                       std::to_string(n_vocab) + " tokens")
          .key = kv.key;
  }
}

void template_rules(const GgufFile& shard, Report& report) {
  for (const GgufKeyValue& kv : shard.metadata) {
    if (!kv.key.starts_with("tokenizer.chat_template") || kv.value.type() != GgufType::String) continue;
    std::size_t first = 0;
    const std::vector<std::string> found = template_internals(kv.value.as_string(), first);
    if (found.empty()) continue;
    std::string list;
    for (const auto& f : found) list += (list.empty() ? "" : ", ") + f;
    report
        .warning("chat-template-internals", kv.offset,
                 "the chat template reaches Python/Jinja internals (" + list + ", first at character " +
                     std::to_string(first) + "); an unsandboxed Jinja renderer runs such code (CVE-2024-34359)")
        .key = kv.key;
  }
}

}  // namespace

void content_rules(const GgufFile& shard, Report& report) {
  tokenizer_rules(shard, report);
  template_rules(shard, report);
}

}  // namespace onnxq::check_detail
