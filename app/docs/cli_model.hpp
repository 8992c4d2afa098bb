// A plain description of the command-line interface, read from the CLI11 app tree that
// --help prints. The man page and the shell completions are rendered from it, so they
// cannot list an option that --help does not, or miss one that it does.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;  // declared only: the pages are written from the model, without CLI11
}  // namespace CLI

namespace onnxq::cli::docs {

struct OptionDoc {
  std::vector<std::string> names;    // "-t", "--tensor"; empty for a positional
  std::string positional;            // "FILE" for a positional
  std::string value_name;            // "TEXT", "INT" ...; empty for a flag
  std::vector<std::string> choices;  // from an IsMember check: {bf16,f16,f32}
  std::string description;
  std::string default_value;
  bool required = false;
  bool repeatable = false;
  bool names_path = false;  // the value names a file or folder (declared with names_path())
  int words_per_use = 0;    // command-line words one use may take: 0 flag, 1, -1 unbounded (see common_options)
  bool takes_value() const { return !value_name.empty(); }
};

struct CommandDoc {
  std::string name;
  std::string description;
  std::string footer;
  std::vector<OptionDoc> options;       // in --help order
  std::vector<OptionDoc> positionals;   // in command-line order
  std::vector<CommandDoc> subcommands;  // in --help order; hidden ones are left out
};

// Walks `app` and its subcommands. Hidden options and subcommands (empty group) are skipped.
CommandDoc describe_app(const CLI::App& app);

// One line per option of every command: "onnxq dequant\t--tensor\t1\trepeatable" (the path of
// commands, the option's longest name or positional name, words_per_use, and "repeatable" or
// "single"). tests/cli/list_options.sh reads it (`onnxq --generate options`).
std::string render_option_table(const CommandDoc& root);

}  // namespace onnxq::cli::docs
