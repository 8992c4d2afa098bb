// onnxq check: every problem of a GGUF file, with its offset and record, errors and warnings.
#include <iostream>
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "exit_codes.hpp"
#include "metadata_format.hpp"
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

const char* severity_name(Severity s) { return s == Severity::Error ? "error" : "warning"; }

// What check found: the library's findings and their counts.
struct CheckFacts {
  std::string path;
  std::vector<Finding> findings;
  std::size_t errors = 0, warnings = 0;
};

CheckFacts compute_check(const std::string& path) {
  CheckFacts f;
  f.path = path;
  f.findings = check_gguf_file(path);
  for (const Finding& x : f.findings) (x.severity == Severity::Error ? f.errors : f.warnings) += 1;
  return f;
}

void render_check_json(const CheckFacts& facts) {
  Json list = Json::array();
  for (const Finding& f : facts.findings) {
    Json j = {{"severity", severity_name(f.severity)}, {"code", f.code}, {"file", f.file}};
    j["offset"] = f.offset ? Json(*f.offset) : Json(nullptr);
    j["key"] = f.key.empty() ? Json(nullptr) : Json(escape_bytes(f.key));
    j["tensor"] = f.tensor.empty() ? Json(nullptr) : Json(escape_bytes(f.tensor));
    j["message"] = f.message;
    list.push_back(std::move(j));
  }
  std::cout << dump_json(
                   {{"file", facts.path}, {"errors", facts.errors}, {"warnings", facts.warnings}, {"findings", list}})
            << '\n';
}

void render_check_text(const CheckFacts& facts) {
  for (const Finding& f : facts.findings) {
    std::string where;
    if (f.offset) where += " at offset " + std::to_string(*f.offset);
    if (!f.key.empty() || (f.code.find("key") != std::string::npos && f.tensor.empty()))
      where += ", key '" + escape_bytes(f.key) + "'";
    if (!f.tensor.empty()) where += ", tensor '" + escape_bytes(f.tensor) + "'";
    std::cout << escape_bytes(f.file) << ": " << severity_name(f.severity) << " [" << f.code << "]" << where << ": "
              << f.message << '\n';
  }
  std::cout << escape_bytes(facts.path) << ": " << facts.errors << (facts.errors == 1 ? " error, " : " errors, ")
            << facts.warnings << (facts.warnings == 1 ? " warning" : " warnings") << '\n';
}

void run_check(const CheckOptions& opts) {
  const CheckFacts facts = compute_check(opts.path);
  if (opts.json)
    render_check_json(facts);
  else
    render_check_text(facts);
  std::cout.flush();
  const std::size_t errors = facts.errors, warnings = facts.warnings;
  if (errors > 0 || (opts.strict && warnings > 0))
    throw DifferencesFound{opts.path + ": " + std::to_string(errors) + " error(s)" +
                           (opts.strict ? ", " + std::to_string(warnings) + " warning(s) (--strict)" : std::string())};
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
