#include "docs/cli_model.hpp"

#include "common_options.hpp"

namespace onnxq::cli::docs {
namespace {

// CLI11 type names look like "TEXT", "INT:NONNEGATIVE" or "TEXT:{bf16,f16,f32}".
void parse_type_name(const std::string& type_name, OptionDoc& doc) {
  const auto colon = type_name.find(':');
  doc.value_name = type_name.substr(0, colon);
  const auto open = type_name.find('{'), close = type_name.rfind('}');
  if (open == std::string::npos || close == std::string::npos || close < open) return;
  const std::string list = type_name.substr(open + 1, close - open - 1);
  std::size_t start = 0;
  while (start <= list.size()) {
    const auto comma = list.find(',', start);
    const std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) doc.choices.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
}

OptionDoc describe_option(const CLI::Option& opt) {
  OptionDoc doc;
  for (const std::string& s : opt.get_snames()) doc.names.push_back("-" + s);
  for (const std::string& l : opt.get_lnames()) doc.names.push_back("--" + l);
  if (!opt.nonpositional()) doc.positional = opt.get_name(true);
  doc.description = opt.get_description();
  doc.default_value = opt.get_default_str();
  doc.required = opt.get_required();
  doc.names_path = option_names_path(opt);
  doc.words_per_use = words_per_use(opt);
  const bool flag = opt.get_expected_max() == 0;
  if (!flag) {
    parse_type_name(opt.get_type_name(), doc);
    if (doc.value_name.empty()) doc.value_name = "VALUE";
  }
  // Vectors take many values; counted flags (-vv) collect every occurrence.
  doc.repeatable =
      opt.get_expected_max() > 1 || (flag && opt.get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll);
  return doc;
}

}  // namespace

CommandDoc describe_app(const CLI::App& app) {
  CommandDoc doc;
  doc.name = app.get_name();
  doc.description = app.get_description();
  doc.footer = app.get_footer();
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_group().empty()) continue;  // hidden
    OptionDoc o = describe_option(*opt);
    (opt->nonpositional() ? doc.options : doc.positionals).push_back(std::move(o));
  }
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_group().empty()) continue;
    doc.subcommands.push_back(describe_app(*sub));
  }
  return doc;
}

namespace {

void add_option_rows(const CommandDoc& cmd, const std::string& path, std::string& out) {
  auto row = [&](const OptionDoc& o, const std::string& name) {
    out += path + "\t" + name + "\t" + std::to_string(o.words_per_use) + "\t" +
           (o.repeatable ? "repeatable" : "single") + "\n";
  };
  for (const OptionDoc& o : cmd.options) row(o, o.names.empty() ? "?" : o.names.back());
  for (const OptionDoc& o : cmd.positionals) row(o, o.positional);
  for (const CommandDoc& sub : cmd.subcommands) add_option_rows(sub, path + " " + sub.name, out);
}

}  // namespace

std::string render_option_table(const CommandDoc& root) {
  std::string out;
  add_option_rows(root, root.name, out);
  return out;
}

}  // namespace onnxq::cli::docs
