// A GGUF model's tokenizer, from its tokenizer.* metadata: what kind it is, how large, its special
// tokens with their text, and the vocabulary itself (id, text, type, score), read in place.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnxq/gguf/model.hpp"

namespace onnxq {

struct SpecialToken {
  std::string_view role;  // "bos", "eos", "eot", "eom", "unknown", "separator", "padding", "cls", "mask", "fim_pre" ...
  std::string key;        // the metadata key that names it: "tokenizer.ggml.bos_token_id"
  std::int64_t id = 0;    // as stored (some files write -1 for "none")
  std::optional<std::string> text;  // the token's text; empty when the id is not in the vocabulary
};

struct TokenizerSummary {
  bool present = false;                 // the file has tokenizer.* keys at all
  std::optional<std::string> model;     // tokenizer.ggml.model: "llama" (SentencePiece), "gpt2" (byte-level BPE) ...
  std::optional<std::string> pre;       // tokenizer.ggml.pre: the pre-tokenizer ("llama-bpe", "qwen2" ...)
  std::optional<std::uint64_t> tokens;  // vocabulary size (tokenizer.ggml.tokens)
  std::optional<std::uint64_t> merges;  // BPE merges (tokenizer.ggml.merges)
  bool has_scores = false;
  bool has_token_types = false;
  std::vector<SpecialToken> special;  // those the file names, in the role order above
  std::optional<bool> add_bos, add_eos, add_space_prefix;
  std::optional<std::uint64_t> chat_template_bytes;  // tokenizer.chat_template
  std::vector<std::string> named_chat_templates;     // the NAMEs of tokenizer.chat_template.NAME
  std::vector<std::string> notes;                    // keys ignored, one line each
};

TokenizerSummary summarize_tokenizer(const GgufModel& model);

// llama.cpp's token attributes (tokenizer.ggml.token_type): llama_token_type.
enum class TokenType : std::int32_t {
  Undefined = 0,
  Normal = 1,
  Unknown = 2,
  Control = 3,
  UserDefined = 4,
  Unused = 5,
  Byte = 6
};
// "undefined", "normal", "unknown", "control", "user_defined", "unused", "byte"; empty for another number.
std::string_view token_type_name(std::int32_t type);

struct Token {
  std::uint64_t id = 0;
  std::string_view text;             // a view of the file's bytes (valid while the GgufModel lives)
  std::optional<std::int32_t> type;  // when the file has tokenizer.ggml.token_type
  std::optional<float> score;        // when the file has tokenizer.ggml.scores
};

// The vocabulary size: the length of tokenizer.ggml.tokens; 0 when the file has none.
std::uint64_t token_count(const GgufModel& model);
// Visits the vocabulary in id order until `visit` returns false. Throws Error(InvalidInput) when the
// file has no tokenizer.ggml.tokens array of strings.
void for_each_token(const GgufModel& model, const std::function<bool(const Token&)>& visit);

// Which tokens to list: these ids, those whose text holds `find`, the special ones; none of them
// given: every token.
struct TokenChoice {
  std::vector<std::uint64_t> ids;
  std::string find;
  bool special = false;
};
struct ChosenToken {
  Token token;
  std::vector<std::string_view> roles;  // the special-token keys that name it: "bos", "eos" ...
};
// Special: its type says so (control, user-defined, unknown) or a key names it.
bool is_special_token(const ChosenToken& token);
// The chosen tokens in id order. Throws Error(InvalidInput) naming `path` when the model has no
// vocabulary or an id is past it.
std::vector<ChosenToken> choose_tokens(const GgufModel& model, const TokenChoice& choice, const std::string& path);

}  // namespace onnxq
