// onnxq tokens: a model's vocabulary (id, text, type, score), all of it or chosen tokens: by id,
// by text (--find) or the special ones: one list of tokens, printed as text, markdown or JSON.
#include <iostream>
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "model_view.hpp"
#include "onnxq/model/model_info.hpp"
#include "partial_model.hpp"
#include "report.hpp"

namespace onnxq::cli {
namespace {

struct TokensOptions {
  std::string path;
  std::vector<std::uint64_t> ids;
  std::string find;
  bool special = false;
  bool json = false;
  bool markdown = false;
};

std::string roles_text(const ChosenToken& row) {
  std::string out;
  for (std::string_view r : row.roles) out += (out.empty() ? "" : ", ") + std::string(r);
  return out;
}

std::string type_text(const Token& t) {
  if (!t.type) return "-";
  const std::string_view name = token_type_name(*t.type);
  return name.empty() ? std::to_string(*t.type) : std::string(name);
}

void print_report(const std::vector<ChosenToken>& rows, const TokensOptions& opts, OutputFormat format) {
  using A = TextTable::Align;
  print_heading(std::cout, format, 1, opts.path);
  Table t{{"id", "text", "type", "score", "special"}, {A::Right, A::Left, A::Left, A::Right, A::Left}, {}};
  for (const ChosenToken& row : rows) {
    const Token& tok = row.token;
    t.add({plain(std::to_string(tok.id)), code("\"" + escape_for_terminal(tok.text) + "\""), plain(type_text(tok)),
           plain(tok.score ? number_text(*tok.score) : "-"), plain(roles_text(row))});
  }
  print_table(std::cout, format, t);
}

void run_tokens(const TokensOptions& opts) {
  const GgufModel model = open_present_shards(opts.path);  // the vocabulary is in the first shard
  const OutputFormat format = output_format(opts.json, opts.markdown);
  const std::vector<ChosenToken> rows = choose_tokens(model, {opts.ids, opts.find, opts.special}, opts.path);
  if (format == OutputFormat::Json)
    std::cout << tokens_json(rows) << '\n';
  else
    print_report(rows, opts, format);
}

void add_tokens_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<TokensOptions>();
  CLI::App* cmd = app.add_subcommand("tokens", "Show a model's vocabulary: id, text, type and score of each token");
  cmd->footer(
      "With no ID, --find or --special, every token. Texts are shown quoted, control characters escaped as the "
      "other tables escape them. --find matches the stored text, in which SentencePiece vocabularies (model "
      "'llama') write a leading space as U+2581 and byte-level BPE ones (model 'gpt2') as U+0120. Special tokens "
      "are those of type control, user_defined or unknown and those a tokenizer.ggml.*_token_id key names (column "
      "'special').");
  add_gguf_file_argument(*cmd, opts->path);
  cmd->add_option("ID", opts->ids, "Token ids to show")->check(CLI::NonNegativeNumber);
  cmd->add_option("--find", opts->find, "Show the tokens whose text contains this text");
  cmd->add_flag("--special", opts->special, "Show the special tokens");
  add_json_flag(*cmd, opts->json);
  add_markdown_flag(*cmd, opts->markdown);
  cmd->callback([opts] { run_tokens(*opts); });
}

const CommandRegistration tokens_registration{"tokens", 25, &add_tokens_command};

}  // namespace
}  // namespace onnxq::cli
