// The summaries in words (onnxq info): each line's label, text and kind for a small llama-like
// model and a tokenizer, per-layer values in words, numbers in their shortest exact text.
#include "onnxq/model/summary_text.hpp"

#include <gtest/gtest.h>

#include "test_models.hpp"

namespace onnxq {
namespace {

using namespace testing;
using Kind = SummaryLine::Kind;

const SummaryLine& line(const std::vector<SummaryLine>& lines, std::string_view label) {
  for (const SummaryLine& l : lines)
    if (l.label == label) return l;
  static const SummaryLine none{"(none)", "(none)", Kind::Plain};
  return none;
}

TEST(SummaryText, ModelLines) {
  LlamaOptions o;
  o.head_count_kv = {2, 2, 1, 2};
  GgufBuilder b = llama_like(o);
  b.kv_str("general.size_label", "1\x1b[2J");
  const BuiltModel m(b);
  const std::vector<SummaryLine> lines = model_summary_lines(summarize_model(m.file));
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ(lines[0].label, "architecture");
  EXPECT_EQ(lines[0].text, "llama");
  EXPECT_EQ(lines[0].kind, Kind::FromFile);
  EXPECT_EQ(line(lines, "size label").text, "1\x1b[2J");  // escaped by the front end, which the kind tells
  EXPECT_EQ(line(lines, "size label").kind, Kind::FromFile);
  EXPECT_EQ(line(lines, "file type").text, "MOSTLY_Q4_K_M (15)");
  EXPECT_EQ(line(lines, "file type").kind, Kind::Plain);
  EXPECT_EQ(line(lines, "layers").text, "4");
  EXPECT_EQ(line(lines, "heads").text, "8");
  EXPECT_EQ(line(lines, "KV heads").text, "2 on 3 layers, 1 on 1 layer");
  EXPECT_EQ(line(lines, "head size").text, "8 (K), 8 (V)");
  EXPECT_EQ(line(lines, "RoPE").text, "base 10000");
  EXPECT_EQ(line(lines, "vocabulary").text, "32");
  EXPECT_EQ(line(lines, "experts").label, "(none)");  // absent keys give no line
}

TEST(SummaryText, LayerValuesAndNumbers) {
  EXPECT_EQ(layer_values_text({{8}, false}), "8");
  EXPECT_EQ(layer_values_text({{8, 8, 8}, true}), "8");
  EXPECT_EQ(layer_values_text({{8, 0, 8, 4}, true}), "8 on 2 layers, 4 on 1 layer, 0 on 1 layer");
  EXPECT_EQ(layer_values_text({{1, 2, 3, 4}, true}), "per layer, 1 to 4");
  EXPECT_EQ(shortest_number_text(500000.0), "500000");
  EXPECT_EQ(shortest_number_text(-3.0), "-3");
  EXPECT_EQ(shortest_number_text(static_cast<double>(0.1f)), "0.1");
  EXPECT_EQ(shortest_number_text(0.1), "0.1");
  EXPECT_EQ(shortest_number_text(1e20), "1e+20");
  EXPECT_EQ(shortest_number_text(0.25), "0.25");
}

TEST(SummaryText, TokenizerLines) {
  GgufBuilder b;
  b.kv_str("general.architecture", "llama");
  b.kv_str("tokenizer.ggml.model", "gpt2");
  kv_str_array(b, "tokenizer.ggml.tokens", {"<unk>", "a\nb"});
  kv_str_array(b, "tokenizer.ggml.merges", {"a b"});
  b.kv_u32("tokenizer.ggml.eos_token_id", 1);
  kv_bool(b, "tokenizer.ggml.add_bos_token", false);
  b.kv_str("tokenizer.chat_template", "{{ x }}");
  b.kv_str("tokenizer.chat_template.tool\tuse", "t");
  const BuiltModel m(b);
  const std::vector<SummaryLine> lines = tokenizer_summary_lines(summarize_tokenizer(m.file), "dir/m\n.gguf");
  EXPECT_EQ(lines[0].label, "model");
  EXPECT_EQ(lines[0].text, "gpt2");
  EXPECT_EQ(line(lines, "tokens").text, "2");
  EXPECT_EQ(line(lines, "merges").text, "1");
  EXPECT_EQ(line(lines, "eos").text, "1 \"a\\nb\"");
  EXPECT_EQ(line(lines, "eos").kind, Kind::Code);
  EXPECT_EQ(line(lines, "add bos").text, "false");
  EXPECT_EQ(line(lines, "chat template").text, "7 bytes (onnxq meta dir/m\\n.gguf --key tokenizer.chat_template)");
  EXPECT_EQ(line(lines, "named templates").text, "tool\\tuse");
}

}  // namespace
}  // namespace onnxq
