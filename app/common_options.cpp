#include "common_options.hpp"

#include "onnxq/core/error.hpp"
#include "onnxq/core/parallel.hpp"
#include "onnxq/core/value_text.hpp"

#include <charconv>
#include <unordered_set>

namespace onnxq::cli {
namespace {

// Options live as long as their CLI::App, which lives for the whole run.
std::unordered_set<const CLI::Option*>& path_options() {
  static std::unordered_set<const CLI::Option*> options;
  return options;
}

}  // namespace

CLI::Option* names_path(CLI::Option* option) {
  path_options().insert(option);
  return option;
}

bool option_names_path(const CLI::Option& option) { return path_options().count(&option) != 0; }

CLI::Option* repeatable_value(CLI::Option* option) { return option->allow_extra_args(false); }

CLI::Option* comma_list(CLI::Option* option) { return option->allow_extra_args(false)->delimiter(','); }

int words_per_use(const CLI::Option& option) {
  // Mirrors CLI::App::_parse_arg: allow_extra_args keeps eating; otherwise a container option
  // (an "unlimited" expected count) is limited to one value of its type per use.
  if (option.get_allow_extra_args()) return -1;
  const int max_items = option.get_items_expected_max();
  if (max_items >= CLI::detail::expected_max_vector_size / 16) return option.get_type_size_max();
  return max_items;
}

CLI::Option* add_gguf_file_argument(CLI::App& cmd, std::string& path, Presence presence) {
  CLI::Option* opt = names_path(cmd.add_option(
      "FILE", path,
      "GGUF file (for a split model, any shard), or URL: http(s)://... or hf://OWNER/REPO[@REVISION]/PATH"));
  if (presence == Presence::Required) opt->required();
  return opt;
}

CLI::Option* add_filter_option(CLI::App& cmd, std::string& glob, FilterOf what) {
  const char* help = what == FilterOf::Cases
                         ? "Cases whose folder name matches this shell glob (*, ?, [...]), e.g. 'test_unpack_*'"
                         : "Tensors whose name matches this shell glob (*, ?, [...]), e.g. 'blk.0.*'";
  return cmd.add_option("--filter", glob, help);
}

CLI::Option* add_json_flag(CLI::App& cmd, bool& json, std::string_view detail) {
  std::string help = "Print the same facts as JSON";
  if (!detail.empty()) help += " (" + std::string(detail) + ")";
  return cmd.add_flag("--json", json, help);
}

CLI::Option* add_markdown_flag(CLI::App& cmd, bool& markdown) {
  return cmd.add_flag("--markdown", markdown, "Print the same facts as GitHub markdown tables");
}

CLI::Option* add_threads_option(CLI::App& cmd, int& threads) {
  // Like CLI::NonNegativeNumber (same NONNEGATIVE in --help), with a message a person can read.
  // Text that is not an integer is left to the conversion, which reports it.
  const CLI::Validator non_negative(
      [](std::string& text) -> std::string {
        long long value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc() && end == text.data() + text.size() && value < 0)
          return "must be 0 (the default) or more, got " + text;
        return std::string();
      },
      "NONNEGATIVE");
  return cmd
      .add_option("--threads", threads,
                  "Worker threads (0: OMP_NUM_THREADS, else one per core; at most " + std::to_string(kMaxThreads) +
                      "; a decode into a file or pipe adds threads only where they pay off and CPUs are free)")
      ->capture_default_str()
      ->check(non_negative);
}

std::string join_with_commas(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& w : words) text += (text.empty() ? "" : ",") + w;
  return text;
}

Shape parse_shape(const std::string& command, const std::string& text) {
  try {
    return shape_from_text(text);
  } catch (const Error& e) {
    throw CLI::ValidationError(command, "--shape " + std::string(e.what()));
  }
}

}  // namespace onnxq::cli
