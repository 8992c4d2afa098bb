// summarize_tokenizer and for_each_token on files the tests write: the kind, sizes, special tokens
// with their text, flags and chat template; the vocabulary walk; files without a tokenizer.
#include <gtest/gtest.h>

#include "onnxq/core/error.hpp"
#include "onnxq/model/tokenizer.hpp"
#include "test_models.hpp"

namespace onnxq {
namespace {

using namespace testing;

GgufBuilder with_tokenizer(bool big_endian = false) {
  GgufBuilder b;
  b.big_endian = big_endian;
  b.kv_str("general.architecture", "llama");
  b.kv_str("tokenizer.ggml.model", "gpt2");
  b.kv_str("tokenizer.ggml.pre", "llama-bpe");
  kv_str_array(b, "tokenizer.ggml.tokens", {"<unk>", "<s>", "</s>", "hello", "\xC4\xA0world", "a\nb"});
  kv_i32_array(b, "tokenizer.ggml.token_type", {2, 3, 3, 1, 1, 4});
  b.kv("tokenizer.ggml.scores", kArr, [](GgufBytes& w) {
    w.u32(kF32);
    w.u64(6);
    for (std::uint32_t bits : {0u, 0u, 0u, 0xBF800000u /* -1 */, 0xC0000000u /* -2 */, 0u}) w.u32(bits);
  });
  kv_str_array(b, "tokenizer.ggml.merges", {"h e", "l l", "o w"});
  b.kv_u32("tokenizer.ggml.bos_token_id", 1);
  b.kv_u32("tokenizer.ggml.eos_token_id", 2);
  b.kv_u32("tokenizer.ggml.unknown_token_id", 0);
  b.kv_u32("tokenizer.ggml.seperator_token_id", 5);
  b.kv_i32("tokenizer.ggml.padding_token_id", 99);  // outside the vocabulary
  kv_bool(b, "tokenizer.ggml.add_bos_token", true);
  kv_bool(b, "tokenizer.ggml.add_eos_token", false);
  b.kv_str("tokenizer.chat_template", "{{ messages }}");
  b.kv_str("tokenizer.chat_template.tool_use", "{{ tools }}");
  return b;
}

TEST(TokenizerSummary, KindSizesSpecialTokensAndTemplate) {
  const BuiltModel m(with_tokenizer());
  const TokenizerSummary t = summarize_tokenizer(m.file);
  EXPECT_TRUE(t.present);
  EXPECT_EQ(t.model, "gpt2");
  EXPECT_EQ(t.pre, "llama-bpe");
  EXPECT_EQ(t.tokens, 6u);
  EXPECT_EQ(t.merges, 3u);
  EXPECT_TRUE(t.has_scores);
  EXPECT_TRUE(t.has_token_types);
  EXPECT_EQ(t.add_bos, true);
  EXPECT_EQ(t.add_eos, false);
  EXPECT_FALSE(t.add_space_prefix);
  EXPECT_EQ(t.chat_template_bytes, 14u);
  ASSERT_EQ(t.named_chat_templates.size(), 1u);
  EXPECT_EQ(t.named_chat_templates[0], "tool_use");
  ASSERT_EQ(t.special.size(), 5u);
  EXPECT_EQ(t.special[0].role, "bos");
  EXPECT_EQ(t.special[0].id, 1);
  EXPECT_EQ(t.special[0].text, "<s>");
  EXPECT_EQ(t.special[1].role, "eos");
  EXPECT_EQ(t.special[1].text, "</s>");
  EXPECT_EQ(t.special[2].role, "unknown");
  EXPECT_EQ(t.special[2].text, "<unk>");
  EXPECT_EQ(t.special[3].role, "separator");
  EXPECT_EQ(t.special[3].key, "tokenizer.ggml.seperator_token_id");
  EXPECT_EQ(t.special[3].text, "a\nb");
  EXPECT_EQ(t.special[4].role, "padding");
  EXPECT_EQ(t.special[4].id, 99);
  EXPECT_FALSE(t.special[4].text);
  ASSERT_EQ(t.notes.size(), 1u);
  EXPECT_NE(t.notes[0].find("outside the vocabulary of 6 tokens"), std::string::npos);
}

TEST(TokenizerSummary, VocabularyWalk) {
  for (bool big_endian : {false, true}) {
    SCOPED_TRACE(big_endian);
    const BuiltModel m(with_tokenizer(big_endian));
    EXPECT_EQ(token_count(m.file), 6u);
    std::vector<Token> seen;
    for_each_token(m.file, [&](const Token& t) {
      seen.push_back(t);
      return t.id < 4;  // stops after id 4
    });
    ASSERT_EQ(seen.size(), 5u);
    EXPECT_EQ(seen[3].text, "hello");
    EXPECT_EQ(seen[3].type, 1);
    EXPECT_EQ(seen[3].score, -1.0f);
    EXPECT_EQ(seen[4].text, "\xC4\xA0world");
    EXPECT_EQ(seen[4].score, -2.0f);
    EXPECT_EQ(token_type_name(*seen[0].type), "unknown");
    EXPECT_EQ(token_type_name(*seen[1].type), "control");
  }
  EXPECT_EQ(token_type_name(4), "user_defined");
  EXPECT_EQ(token_type_name(42), "");
}

TEST(TokenizerSummary, NoTokenizerAndOddKeys) {
  GgufBuilder b;
  b.kv_str("general.architecture", "llama");
  const BuiltModel none(b);
  EXPECT_FALSE(summarize_tokenizer(none.file).present);
  EXPECT_EQ(token_count(none.file), 0u);
  EXPECT_THROW(for_each_token(none.file, [](const Token&) { return true; }), Error);

  // Tokens that are not strings; a token_type array of the wrong length; an id that is a string.
  GgufBuilder o;
  kv_u32_array(o, "tokenizer.ggml.tokens", {1, 2, 3});
  kv_i32_array(o, "tokenizer.ggml.token_type", {1});
  o.kv_str("tokenizer.ggml.bos_token_id", "one");
  const BuiltModel odd(o);
  const TokenizerSummary t = summarize_tokenizer(odd.file);
  EXPECT_TRUE(t.present);
  EXPECT_FALSE(t.tokens);
  EXPECT_FALSE(t.has_token_types);
  EXPECT_TRUE(t.special.empty());
  EXPECT_EQ(t.notes.size(), 3u);
}

}  // namespace
}  // namespace onnxq
