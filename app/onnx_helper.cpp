// `onnxq`'s side of the ONNX commands (see onnx_commands.hpp): their options are parsed and
// checked here, then the same command line runs in onnxq-onnx, which replaces this process (same
// PID, standard streams, environment and exit status).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "command.hpp"
#include "onnx_commands.hpp"
#include "onnxq/core/error.hpp"

#ifndef ONNXQ_ONNX_HELPER_FROM_BINDIR
#define ONNXQ_ONNX_HELPER_FROM_BINDIR "../libexec/onnxq/onnxq-onnx"
#endif

namespace onnxq::cli {
namespace {

namespace fs = std::filesystem;

// onnxq-onnx beside this executable (the build tree), else where `cmake --install` puts it
// relative to the installed onnxq.
std::string onnx_helper_path() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) fail(ErrorKind::Io, "cannot find onnxq-onnx: /proc/self/exe is unreadable: " + ec.message());
  const fs::path beside = self.parent_path() / "onnxq-onnx";
  if (fs::exists(beside, ec)) return beside.string();
  return (self.parent_path() / ONNXQ_ONNX_HELPER_FROM_BINDIR).lexically_normal().string();
}

[[noreturn]] void run_in_onnx_helper() {
  const std::string helper = onnx_helper_path();
  std::fflush(stdout);
  std::fflush(stderr);
  ::execv(helper.c_str(), remembered_command_line());
  fail(ErrorKind::Io, "cannot run " + helper + " (the program behind the ONNX commands): " + std::strerror(errno));
}

}  // namespace

void run_conformance(const ConformanceCommandOptions&) { run_in_onnx_helper(); }
void run_run(const RunOptions&) { run_in_onnx_helper(); }
void run_make_case(const MakeCaseOptions&) { run_in_onnx_helper(); }
void run_export_onnx(const OnnxExportOptions&) { run_in_onnx_helper(); }

}  // namespace onnxq::cli
