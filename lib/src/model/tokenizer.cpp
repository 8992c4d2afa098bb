#include "onnxq/model/tokenizer.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "metadata_reader.hpp"
#include "onnxq/core/error.hpp"

namespace onnxq {

using model_detail::MetadataReader;

namespace {

constexpr std::string_view kTokensKey = "tokenizer.ggml.tokens";

struct SpecialKey {
  std::string_view role;
  std::string_view key;
};

// llama.cpp's LLM_KV_TOKENIZER_*_ID keys ("seperator" is its spelling; the other is accepted too).
constexpr SpecialKey kSpecialKeys[] = {
    {"bos", "tokenizer.ggml.bos_token_id"},
    {"eos", "tokenizer.ggml.eos_token_id"},
    {"eot", "tokenizer.ggml.eot_token_id"},
    {"eom", "tokenizer.ggml.eom_token_id"},
    {"unknown", "tokenizer.ggml.unknown_token_id"},
    {"separator", "tokenizer.ggml.seperator_token_id"},
    {"separator", "tokenizer.ggml.separator_token_id"},
    {"padding", "tokenizer.ggml.padding_token_id"},
    {"cls", "tokenizer.ggml.cls_token_id"},
    {"mask", "tokenizer.ggml.mask_token_id"},
    {"fim_pre", "tokenizer.ggml.fim_pre_token_id"},
    {"fim_suf", "tokenizer.ggml.fim_suf_token_id"},
    {"fim_mid", "tokenizer.ggml.fim_mid_token_id"},
    {"fim_pad", "tokenizer.ggml.fim_pad_token_id"},
    {"fim_rep", "tokenizer.ggml.fim_rep_token_id"},
    {"fim_sep", "tokenizer.ggml.fim_sep_token_id"},
};

// The vocabulary array, when the file has one of strings.
std::optional<GgufArray> tokens_array(const GgufModel& model) {
  const GgufValue* v = model.find_metadata(kTokensKey);
  if (!v || v->type() != GgufType::Array || v->as_array().element_type() != GgufType::String) return std::nullopt;
  return v->as_array();
}

// A per-token array of the given element type with one entry per token, else nullopt.
std::optional<GgufArray> token_column(const GgufModel& model, std::string_view key, GgufType element,
                                      std::uint64_t tokens) {
  const GgufValue* v = model.find_metadata(key);
  if (!v || v->type() != GgufType::Array) return std::nullopt;
  const GgufArray a = v->as_array();
  if (a.element_type() != element || a.size() != tokens) return std::nullopt;
  return a;
}

}  // namespace

std::string_view token_type_name(std::int32_t type) {
  switch (type) {
    case 0: return "undefined";
    case 1: return "normal";
    case 2: return "unknown";
    case 3: return "control";
    case 4: return "user_defined";
    case 5: return "unused";
    case 6: return "byte";
    default: return {};
  }
}

std::uint64_t token_count(const GgufModel& model) {
  const auto tokens = tokens_array(model);
  return tokens ? tokens->size() : 0;
}

void for_each_token(const GgufModel& model, const std::function<bool(const Token&)>& visit) {
  const auto tokens = tokens_array(model);
  if (!tokens) invalid_input(model.primary().path + ": no tokenizer vocabulary (" + std::string(kTokensKey) + ")");
  const std::uint64_t n = tokens->size();
  const auto types = token_column(model, "tokenizer.ggml.token_type", GgufType::Int32, n);
  const auto scores = token_column(model, "tokenizer.ggml.scores", GgufType::Float32, n);
  std::uint64_t id = 0;
  tokens->for_each([&](const GgufValue& text) {
    Token t;
    t.id = id;
    t.text = text.as_string();
    if (types) t.type = static_cast<std::int32_t>(types->at(id).as_i64());
    if (scores) t.score = scores->at(id).as_f32();
    ++id;
    return visit(t);
  });
}

TokenizerSummary summarize_tokenizer(const GgufModel& model) {
  TokenizerSummary s;
  MetadataReader md(model, s.notes);
  for (const GgufKeyValue& kv : model.metadata())
    if (kv.key.starts_with("tokenizer.")) s.present = true;
  if (!s.present) return s;
  s.model = md.text("tokenizer.ggml.model");
  s.pre = md.text("tokenizer.ggml.pre");
  if (md.has(kTokensKey)) {
    if (const auto tokens = tokens_array(model))
      s.tokens = tokens->size();
    else
      md.note(std::string(kTokensKey) + " is not an array of strings; ignored");
  }
  s.merges = md.array_size("tokenizer.ggml.merges");
  const std::uint64_t n = s.tokens.value_or(0);
  s.has_scores = token_column(model, "tokenizer.ggml.scores", GgufType::Float32, n).has_value();
  s.has_token_types = token_column(model, "tokenizer.ggml.token_type", GgufType::Int32, n).has_value();
  if (md.has("tokenizer.ggml.scores") && !s.has_scores)
    md.note("tokenizer.ggml.scores is not an array of f32 with one entry per token; ignored");
  if (md.has("tokenizer.ggml.token_type") && !s.has_token_types)
    md.note("tokenizer.ggml.token_type is not an array of i32 with one entry per token; ignored");
  s.add_bos = md.flag("tokenizer.ggml.add_bos_token");
  s.add_eos = md.flag("tokenizer.ggml.add_eos_token");
  s.add_space_prefix = md.flag("tokenizer.ggml.add_space_prefix");
  if (const GgufValue* t = md.find("tokenizer.chat_template")) {
    if (t->type() == GgufType::String)
      s.chat_template_bytes = t->as_string().size();
    else
      md.note("tokenizer.chat_template is not a string; ignored");
  }
  constexpr std::string_view kNamedTemplate = "tokenizer.chat_template.";
  for (const GgufKeyValue& kv : model.metadata())
    if (kv.key.starts_with(kNamedTemplate) && kv.key.size() > kNamedTemplate.size())
      s.named_chat_templates.emplace_back(kv.key.substr(kNamedTemplate.size()));

  for (const SpecialKey& sk : kSpecialKeys) {
    const auto id = md.integer(sk.key);
    if (!id) continue;
    s.special.push_back({sk.role, std::string(sk.key), *id, std::nullopt});
  }
  // One pass over the vocabulary for the texts (strings are reached only by walking the array).
  std::map<std::uint64_t, std::vector<SpecialToken*>> wanted;
  for (SpecialToken& t : s.special)
    if (t.id >= 0 && static_cast<std::uint64_t>(t.id) < n) wanted[static_cast<std::uint64_t>(t.id)].push_back(&t);
  if (!wanted.empty()) {
    const std::uint64_t last = wanted.rbegin()->first;
    std::uint64_t id = 0;
    tokens_array(model)->for_each([&](const GgufValue& text) {
      if (const auto it = wanted.find(id); it != wanted.end())
        for (SpecialToken* t : it->second) t->text = std::string(text.as_string());
      return id++ < last;
    });
  }
  for (const SpecialToken& t : s.special)
    if (!t.text && t.id >= 0)
      md.note(t.key + " is " + std::to_string(t.id) + ", outside the vocabulary of " + std::to_string(n) + " tokens");
  return s;
}

bool is_special_token(const ChosenToken& chosen) {
  const auto t = chosen.token.type;
  return !chosen.roles.empty() || (t && (*t == static_cast<std::int32_t>(TokenType::Control) ||
                                         *t == static_cast<std::int32_t>(TokenType::UserDefined) ||
                                         *t == static_cast<std::int32_t>(TokenType::Unknown)));
}

std::vector<ChosenToken> choose_tokens(const GgufModel& model, const TokenChoice& choice, const std::string& path) {
  const std::uint64_t count = token_count(model);
  if (count == 0) invalid_input(path + ": no tokenizer vocabulary (tokenizer.ggml.tokens)");
  for (std::uint64_t id : choice.ids)
    if (id >= count)
      invalid_input(path + ": token id " + std::to_string(id) + " is out of range: the vocabulary has " +
                    std::to_string(count) + " tokens (0 to " + std::to_string(count - 1) + ")");
  std::map<std::uint64_t, std::vector<std::string_view>> roles;
  for (const SpecialToken& s : summarize_tokenizer(model).special)
    if (s.id >= 0) roles[static_cast<std::uint64_t>(s.id)].push_back(s.role);
  const std::set<std::uint64_t> ids(choice.ids.begin(), choice.ids.end());
  const bool everything = ids.empty() && choice.find.empty() && !choice.special;
  std::vector<ChosenToken> chosen;
  for_each_token(model, [&](const Token& t) {
    ChosenToken row{t, {}};
    if (const auto it = roles.find(t.id); it != roles.end()) row.roles = it->second;
    if (everything || ids.count(t.id) || (!choice.find.empty() && t.text.find(choice.find) != std::string_view::npos) ||
        (choice.special && is_special_token(row)))
      chosen.push_back(std::move(row));
    return true;
  });
  return chosen;
}

}  // namespace onnxq
