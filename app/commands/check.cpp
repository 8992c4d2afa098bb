// onnxq check: every problem of a GGUF file, with its offset and record, errors and warnings.
#include <iostream>
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "exit_codes.hpp"
#include "onnxq/check/check.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/core/text_escape.hpp"

namespace onnxq::cli {
namespace {

struct CheckOptions {
  std::string path;
  bool json = false;
  bool strict = false;
};

void run_check(const CheckOptions& opts) {
  const std::vector<Finding> findings = check_gguf_file(opts.path);
  const FindingCounts counts = count_findings(findings);
  if (opts.json) {
    std::cout << findings_json(opts.path, findings) << '\n';
  } else {
    for (const Finding& f : findings) std::cout << finding_line(f) << '\n';
    std::cout << escape_bytes(opts.path) << ": " << counts.errors << (counts.errors == 1 ? " error, " : " errors, ")
              << counts.warnings << (counts.warnings == 1 ? " warning" : " warnings") << '\n';
  }
  std::cout.flush();
  if (counts.errors > 0 || (opts.strict && counts.warnings > 0))
    throw DifferencesFound{
        opts.path + ": " + std::to_string(counts.errors) + " error(s)" +
        (opts.strict ? ", " + std::to_string(counts.warnings) + " warning(s) (--strict)" : std::string())};
}

void add_check_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<CheckOptions>();
  CLI::App* cmd = app.add_subcommand(
      "check", "Report every problem of a GGUF file (errors) and legal but risky content (warnings)");
  names_path(cmd->add_option("FILE", opts->path, "GGUF file (a local file: check reads its bytes itself, not URLs)"))
      ->required();
  add_json_flag(*cmd, opts->json,
                "{file, errors, warnings, findings: [{severity, code, file, offset, key, tensor, "
                "message}]}");
  cmd->add_flag("--strict", opts->strict, "Exit with status 4 on warnings too");
  cmd->footer(
      "Errors: what onnxq's reader rejects; what ggml's reader rejects although onnxq reads it (tensor data "
      "out of tensor-info order, overlapping or with gaps, a data section cut short, arrays of arrays, "
      "strings over 64 MiB, arrays over 64 Mi elements, tensor names equal up to a NUL byte); what the GGUF "
      "specification forbids (keys that are not ASCII or longer than "
      "65535 bytes). The walk goes on after a problem whenever the next record can still be found.\n"
      "Warnings: control characters and escape sequences in keys, tensor names and strings; invalid UTF-8; "
      "chat templates reaching Python/Jinja internals; tokenizer arrays of different lengths, a vocabulary "
      "that disagrees with token_embd.weight or <arch>.vocab_size, special-token ids outside it; non-zero "
      "padding and bytes after the data; an alignment other than 32; the 'FUGG' magic and big-endian files; "
      "split.* keys that disagree across shards.\n"
      "One line per finding: FILE: SEVERITY [CODE] at offset N, key 'K', tensor 'T': MESSAGE, with text "
      "from the file escaped (\\xNN); then a count. Exit status 0 without errors (or, with --strict, without "
      "warnings), else 4 (as for the differences found by diff --exit-code and hash --check).");
  cmd->callback([opts] { run_check(*opts); });
}

const CommandRegistration check_registration{"check", 56, &add_check_command};

}  // namespace
}  // namespace onnxq::cli
