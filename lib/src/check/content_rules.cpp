// Rules about what the metadata says, not how it is stored: tokenizer arrays and the embedding
// that must agree, and chat templates that reach Python internals.
#include <string>

#include "walker.hpp"

namespace onnxq::check_detail {
namespace {

constexpr std::uint32_t kTypeString = 8, kTypeArray = 9;

std::string str(std::uint64_t v) { return std::to_string(v); }

bool is_integer_type(std::uint32_t t) { return t <= 5 || t == 10 || t == 11; }

void tokenizer_rules(const FileFacts& facts, Report& report) {
  const KeyValue* tokens = facts.find("tokenizer.ggml.tokens");
  const std::uint64_t n_vocab = tokens && tokens->type == kTypeArray ? tokens->count : 0;
  if (tokens && tokens->type == kTypeArray) {
    for (const char* other : {"tokenizer.ggml.scores", "tokenizer.ggml.token_type"}) {
      const KeyValue* kv = facts.find(other);
      if (kv && kv->type == kTypeArray && kv->count != n_vocab)
        report
            .warning("tokenizer-lengths", kv->offset,
                     "holds " + str(kv->count) + " entries but tokenizer.ggml.tokens holds " + str(n_vocab) +
                         ": a loader indexing one by the other reads out of bounds")
            .key = kv->key;
    }
  }
  if (!tokens || tokens->type != kTypeArray) return;
  for (const TensorRecord& t : facts.tensors)
    if (t.name == "token_embd.weight" && t.ne.size() >= 2 && t.ne[1] != n_vocab)
      report
          .warning("vocab-size", t.offset,
                   "token_embd.weight has " + str(t.ne[1]) + " rows but the vocabulary has " + str(n_vocab) + " tokens")
          .tensor = t.name;
  if (const KeyValue* arch = facts.find("general.architecture"); arch && arch->type == kTypeString) {
    const std::string key = std::string(arch->text) + ".vocab_size";
    if (const KeyValue* kv = facts.find(key); kv && is_integer_type(kv->type) && kv->bits != n_vocab)
      report
          .warning("vocab-size", kv->offset,
                   "says " + str(kv->bits) + " but tokenizer.ggml.tokens holds " + str(n_vocab) + " tokens")
          .key = kv->key;
  }
  // Special-token ids index the vocabulary.
  for (const KeyValue& kv : facts.metadata) {
    if (!kv.key.starts_with("tokenizer.ggml.") || !kv.key.ends_with("_token_id") || !is_integer_type(kv.type)) continue;
    const bool negative = (kv.type == 1 && (kv.bits & 0x80)) || (kv.type == 3 && (kv.bits & 0x8000)) ||
                          (kv.type == 5 && (kv.bits & 0x80000000u)) || (kv.type == 11 && (kv.bits >> 63));
    if (negative) continue;  // -1 conventionally means "none"
    if (kv.bits >= n_vocab)
      report
          .warning("token-id-range", kv.offset,
                   "token id " + str(kv.bits) + " is outside the vocabulary of " + str(n_vocab) + " tokens")
          .key = kv.key;
  }
}

void template_rules(const FileFacts& facts, Report& report) {
  for (const KeyValue& kv : facts.metadata) {
    if (!kv.key.starts_with("tokenizer.chat_template") || kv.type != kTypeString) continue;
    std::size_t first = 0;
    const std::vector<std::string> found = template_internals(kv.text, first);
    if (found.empty()) continue;
    std::string list;
    for (const auto& f : found) list += (list.empty() ? "" : ", ") + f;
    report
        .warning("chat-template-internals", kv.offset,
                 "the chat template reaches Python/Jinja internals (" + list + ", first at character " + str(first) +
                     "); an unsandboxed Jinja renderer runs such code (CVE-2024-34359)")
        .key = kv.key;
  }
}

}  // namespace

void content_rules(const FileFacts& facts, Report& report) {
  tokenizer_rules(facts, report);
  template_rules(facts, report);
}

}  // namespace onnxq::check_detail
