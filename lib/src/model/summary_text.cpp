// The summaries in words.
#include "onnxq/model/summary_text.hpp"

#include <charconv>
#include <functional>
#include <map>

#include "onnxq/core/text_escape.hpp"
#include "onnxq/model/file_type.hpp"

namespace onnxq {
namespace summary_text_detail {
namespace {

struct Text {
  std::string text;
  SummaryLine::Kind kind;
};
Text plain(std::string text) { return {std::move(text), SummaryLine::Kind::Plain}; }
Text file_text(std::string_view text) { return {std::string(text), SummaryLine::Kind::FromFile}; }
Text code(std::string text) { return {std::move(text), SummaryLine::Kind::Code}; }

struct Lines {
  std::vector<SummaryLine> lines;
  void add(std::string label, Text t) { lines.push_back({std::move(label), std::move(t.text), t.kind}); }
};

std::string count_text(std::uint64_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

std::string file_type_text(const ModelSummary& m) {
  const std::uint32_t id = *m.file_type & ~kLlamaFileTypeGuessed;
  const std::string_view name = llama_file_type_name(id);
  std::string text = name.empty() ? "unknown" : std::string(name);
  if (m.file_type_guessed) return text + " (no general.file_type; guessed from the tensor types, as llama.cpp does)";
  return text + " (" + std::to_string(*m.file_type) + ")";
}

std::string rope_text(const ModelSummary::Rope& r) {
  std::vector<std::string> parts;
  if (r.freq_base) parts.push_back("base " + shortest_number_text(*r.freq_base));
  if (r.scaling_type || r.scaling_factor) {
    std::string s = "scaling " + r.scaling_type.value_or("linear");
    if (r.scaling_factor) s += " x" + shortest_number_text(*r.scaling_factor);
    if (r.original_context_length) s += " from " + std::to_string(*r.original_context_length) + " tokens";
    parts.push_back(s);
  }
  if (r.dimension_count) parts.push_back(std::to_string(*r.dimension_count) + " dimensions");
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

}  // namespace
}  // namespace summary_text_detail

using namespace summary_text_detail;

std::string shortest_number_text(double value) {
  char buf[64];
  if (value == static_cast<double>(static_cast<long long>(value)) && value > -1e15 && value < 1e15)
    return std::to_string(static_cast<long long>(value));  // 500000, not 5e+05
  const float f = static_cast<float>(value);
  const auto r = static_cast<double>(f) == value ? std::to_chars(buf, buf + sizeof buf, f)
                                                 : std::to_chars(buf, buf + sizeof buf, value);
  return std::string(buf, r.ptr);
}

std::string layer_values_text(const LayerValues& v) {
  if (v.uniform()) return std::to_string(v.at(0));
  std::map<std::uint64_t, std::uint64_t, std::greater<>> counts;
  for (std::uint64_t x : v.values) ++counts[x];
  if (counts.size() > 3) return "per layer, " + std::to_string(v.min()) + " to " + std::to_string(v.max());
  std::string out;
  for (const auto& [value, n] : counts)
    out += (out.empty() ? "" : ", ") + std::to_string(value) + " on " + count_text(n, "layer", "layers");
  return out;
}

std::vector<SummaryLine> model_summary_lines(const ModelSummary& m) {
  Lines f;
  if (!m.architecture.empty()) f.add("architecture", file_text(m.architecture));
  if (m.name) f.add("name", file_text(*m.name));
  if (m.type) f.add("type", file_text(*m.type));
  if (m.size_label) f.add("size label", file_text(*m.size_label));
  if (m.file_type) f.add("file type", plain(file_type_text(m)));
  if (m.context_length) f.add("context length", plain(std::to_string(*m.context_length)));
  if (m.embedding_length) f.add("embedding length", plain(std::to_string(*m.embedding_length)));
  if (m.block_count) f.add("layers", plain(std::to_string(*m.block_count)));
  if (m.head_count) f.add("heads", plain(layer_values_text(*m.head_count)));
  if (m.head_count_kv) f.add("KV heads", plain(layer_values_text(*m.head_count_kv)));
  if (m.head_dim_k || m.head_dim_v)
    f.add("head size", plain(std::to_string(m.head_dim_k) + " (K), " + std::to_string(m.head_dim_v) + " (V)" +
                             (m.mla ? "; multi-head latent attention" : "")));
  if (m.feed_forward_length) f.add("feed-forward length", plain(layer_values_text(*m.feed_forward_length)));
  if (m.expert_count) {
    std::string e = std::to_string(*m.expert_count);
    if (m.expert_used_count) e += ", " + std::to_string(*m.expert_used_count) + " used per token";
    if (m.expert_shared_count) e += ", " + std::to_string(*m.expert_shared_count) + " shared";
    f.add("experts", plain(e));
  }
  if (m.expert_feed_forward_length) f.add("expert feed-forward", plain(std::to_string(*m.expert_feed_forward_length)));
  if (const std::string rope = rope_text(m.rope); !rope.empty()) f.add("RoPE", plain(rope));
  if (m.sliding_window)
    f.add("sliding window",
          plain(std::to_string(*m.sliding_window) + " tokens (" +
                std::string(sliding_window_kind_name(m.sliding_window_kind)) + ") on " +
                std::to_string(m.sliding_window_layers()) + " of " + count_text(m.layers.size(), "layer", "layers")));
  if (const std::uint64_t r = m.recurrent_layers())
    f.add("recurrent layers", plain(std::to_string(r) + " of " + std::to_string(m.layers.size()) + " (" +
                                    std::string(recurrent_state_kind_name(m.recurrent_state)) + " state)"));
  if (!m.has_kv_cache && m.recurrent_layers() == 0 && !m.layers.empty())
    f.add("KV cache", plain("none (llama.cpp runs this architecture without one)"));
  if (m.vocab_size) f.add("vocabulary", plain(std::to_string(*m.vocab_size)));
  for (const std::string& note : m.notes) f.add("note", file_text(note));
  return f.lines;
}

std::vector<SummaryLine> tokenizer_summary_lines(const TokenizerSummary& t, std::string_view path) {
  Lines f;
  if (t.model) f.add("model", file_text(*t.model));
  if (t.pre) f.add("pre-tokenizer", file_text(*t.pre));
  if (t.tokens) f.add("tokens", plain(std::to_string(*t.tokens)));
  if (t.merges) f.add("merges", plain(std::to_string(*t.merges)));
  for (const SpecialToken& s : t.special) {
    std::string value = std::to_string(s.id);
    if (s.text) value += " \"" + escape_controls(*s.text) + "\"";
    f.add(std::string(s.role), code(value));
  }
  if (t.add_bos) f.add("add bos", plain(*t.add_bos ? "true" : "false"));
  if (t.add_eos) f.add("add eos", plain(*t.add_eos ? "true" : "false"));
  if (t.add_space_prefix) f.add("add space prefix", plain(*t.add_space_prefix ? "true" : "false"));
  if (t.chat_template_bytes)
    f.add("chat template", plain(count_text(*t.chat_template_bytes, "byte", "bytes") + " (onnxq meta " +
                                 escape_controls(path) + " --key tokenizer.chat_template)"));
  if (!t.named_chat_templates.empty()) {
    std::string names;
    for (const std::string& n : t.named_chat_templates) names += (names.empty() ? "" : ", ") + escape_controls(n);
    f.add("named templates", plain(names));
  }
  for (const std::string& note : t.notes) f.add("note", file_text(note));
  return f.lines;
}

}  // namespace onnxq
