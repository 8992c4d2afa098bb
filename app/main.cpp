// onnxq: look inside GGUF files and turn packed tensors into ordinary arrays.
// main only wires the registered commands to CLI11 and maps errors to exit codes.
#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "command.hpp"
#include "docs/generate.hpp"
#include "exit_codes.hpp"
#include "io_settings.hpp"
#include "log.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/core/version.hpp"
#include "onnxq/io/io_options.hpp"
#include "onnxq/io/mapping_guard.hpp"
#include "output.hpp"
#include "progress.hpp"

using namespace onnxq;
using namespace onnxq::cli;

namespace {

// --timeout, else $ONNXQ_TIMEOUT, else the library's default.
void setup_io(const GlobalOptions& global) {
  IoOptions options;
  try {
    options = IoOptions::from_environment();
  } catch (const Error& e) {
    // CLI11 writes "NAME: reason"; the library's message is "NAME reason".
    if (global.timeout <= 0)
      throw CLI::ValidationError(std::string(kTimeoutVariable),
                                 std::string(e.what()).substr(kTimeoutVariable.size() + 1));
  }
  if (global.timeout > 0) options.remote.timeout_seconds = global.timeout;
  set_io_options(options);
}

}  // namespace

int main(int argc, char** argv) {
  make_standard_descriptors_valid();
  install_output_signal_handlers();
  install_mapping_fault_guard();
  remember_command_line(argv);

  CLI::App app{"onnxq: inspect GGUF model files and decode their packed tensors into ordinary arrays"};
  app.name("onnxq");
  app.require_subcommand(1);
  app.fallthrough();  // -v/-q also work after the subcommand: `onnxq dequant ... -v`
  app.set_version_flag("--version", std::string("onnxq ") + std::string(kVersion));
  GlobalOptions global;
  app.add_flag("-v,--verbose", global.verbosity, "More log output on stderr (-v info, -vv debug)");
  app.add_flag("-q,--quiet", global.quiet, "Only errors on stderr; no progress");
  app.add_option("--timeout", global.timeout,
                 "Seconds a remote server may take to connect, or go without sending data (default 30; "
                 "environment: ONNXQ_TIMEOUT)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            char* end = nullptr;
            const double seconds = std::strtod(text.c_str(), &end);
            return *end == '\0' && seconds > 0 ? std::string() : "must be a positive number of seconds, got " + text;
          },
          "SECONDS"));
  app.parse_complete_callback([&] {
    log::setup_logging(global.verbosity, global.quiet);
    set_progress_enabled(!global.quiet);
    setup_io(global);
  });

  for (const CommandRegistration* command : commands_for(argc, argv)) command->add(app, global);
  docs::add_generate_option(app);  // hidden: man page and completions from these definitions

  int status = kExitOk;
  try {
    app.parse(argc, argv);
    // A reader that does not check (metadata, names: views of the mapping) read zeros instead.
    if (const auto change = mapped_file_change()) fail(ErrorKind::Io, *change);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::Success&) {
    return kExitOk;  // --generate finished
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  } catch (const BrokenPipe&) {
    return kExitBrokenPipe;
  } catch (const DifferencesFound& d) {
    std::fflush(stdout);
    if (!d.message.empty()) std::fprintf(stderr, "onnxq: error: %s\n", d.message.c_str());
    status = kExitDifferences;
  } catch (const Error& e) {
    std::fflush(stdout);
    // Zeros read from a file that shrank under its mapping can break any rule: name the cause.
    const auto change = mapped_file_change();
    std::fprintf(stderr, "onnxq: error: %s\n", change ? change->c_str() : e.what());
    return change ? kExitIo : exit_code_for(e.kind());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "onnxq: error: out of memory\n");
    return kExitIo;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "onnxq: error: %s\n", e.what());
    return kExitInvalidInput;
  }
  // Text output is buffered: its last write happens here, and a failed write earlier left the
  // stream's error flag (glibc retries a failed buffer on the next flush, which sets errno again).
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int err = errno;
  if (!flushed || std::ferror(stdout)) {
    if (err == EPIPE) return kExitBrokenPipe;
    std::fprintf(stderr, "onnxq: error: cannot write standard output%s%s\n", err ? ": " : "",
                 err ? std::strerror(err) : "");
    return kExitIo;
  }
  return status;
}
