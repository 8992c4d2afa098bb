// onnxq tokens: a model's vocabulary (id, text, type, score), all of it or chosen tokens: by id,
// by text (--find) or the special ones: one list of tokens, printed as text, markdown or JSON.
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include "command.hpp"
#include "common_options.hpp"
#include "metadata_format.hpp"
#include "model_view.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/model/tokenizer.hpp"
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

struct TokenRow {
  Token token;
  std::vector<std::string_view> roles;  // the special-token keys that name it: "bos", "eos" ...
};

// A token is special when its type says so (control, user-defined, unknown) or a key names it.
bool is_special(const TokenRow& row) {
  const auto t = row.token.type;
  return !row.roles.empty() || (t && (*t == static_cast<std::int32_t>(TokenType::Control) ||
                                      *t == static_cast<std::int32_t>(TokenType::UserDefined) ||
                                      *t == static_cast<std::int32_t>(TokenType::Unknown)));
}

std::vector<TokenRow> gather(const GgufModel& model, const TokensOptions& opts) {
  const std::uint64_t count = token_count(model);
  if (count == 0) invalid_input(opts.path + ": no tokenizer vocabulary (tokenizer.ggml.tokens)");
  for (std::uint64_t id : opts.ids)
    if (id >= count)
      invalid_input(opts.path + ": token id " + std::to_string(id) + " is out of range: the vocabulary has " +
                    std::to_string(count) + " tokens (0 to " + std::to_string(count - 1) + ")");
  std::map<std::uint64_t, std::vector<std::string_view>> roles;
  for (const SpecialToken& s : summarize_tokenizer(model).special)
    if (s.id >= 0) roles[static_cast<std::uint64_t>(s.id)].push_back(s.role);
  const std::set<std::uint64_t> ids(opts.ids.begin(), opts.ids.end());
  const bool everything = ids.empty() && opts.find.empty() && !opts.special;
  std::vector<TokenRow> rows;
  for_each_token(model, [&](const Token& t) {
    TokenRow row{t, {}};
    if (const auto it = roles.find(t.id); it != roles.end()) row.roles = it->second;
    if (everything || ids.count(t.id) || (!opts.find.empty() && t.text.find(opts.find) != std::string_view::npos) ||
        (opts.special && is_special(row)))
      rows.push_back(std::move(row));
    return true;
  });
  return rows;
}

std::string roles_text(const TokenRow& row) {
  std::string out;
  for (std::string_view r : row.roles) out += (out.empty() ? "" : ", ") + std::string(r);
  return out;
}

std::string type_text(const Token& t) {
  if (!t.type) return "-";
  const std::string_view name = token_type_name(*t.type);
  return name.empty() ? std::to_string(*t.type) : std::string(name);
}

void print_json(const std::vector<TokenRow>& rows) {
  Json out = Json::array();
  for (const TokenRow& row : rows) {
    const Token& t = row.token;
    Json roles = Json::array();
    for (std::string_view r : row.roles) roles.push_back(std::string(r));
    const std::string_view type_name = t.type ? token_type_name(*t.type) : std::string_view();
    out.push_back(
        {{"id", t.id},
         {"text", std::string(t.text)},
         {"type", t.type ? (type_name.empty() ? Json(*t.type) : Json(std::string(type_name))) : Json(nullptr)},
         {"score", t.score ? Json(static_cast<double>(*t.score)) : Json(nullptr)},
         {"roles", roles}});
  }
  std::cout << dump_json(out) << '\n';
}

void print_report(const std::vector<TokenRow>& rows, const TokensOptions& opts, OutputFormat format) {
  using A = TextTable::Align;
  print_heading(std::cout, format, 1, opts.path);
  Table t{{"id", "text", "type", "score", "special"}, {A::Right, A::Left, A::Left, A::Right, A::Left}, {}};
  for (const TokenRow& row : rows) {
    const Token& tok = row.token;
    t.add({plain(std::to_string(tok.id)), code("\"" + escape_for_terminal(tok.text) + "\""), plain(type_text(tok)),
           plain(tok.score ? number_text(*tok.score) : "-"), plain(roles_text(row))});
  }
  print_table(std::cout, format, t);
}

void run_tokens(const TokensOptions& opts) {
  const GgufModel model = open_present_shards(opts.path);  // the vocabulary is in the first shard
  const OutputFormat format = output_format(opts.json, opts.markdown);
  const std::vector<TokenRow> rows = gather(model, opts);
  if (format == OutputFormat::Json)
    print_json(rows);
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
