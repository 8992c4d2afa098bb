// The commands that read or write ONNX files (conformance, run, make-case, export to .onnx). Their options are
// defined in app/commands/ like every other command's, so --help, the man page and option errors
// come from `onnxq` itself. Running them needs libprotobuf and libonnx_proto, whose loading and
// relocation would otherwise slow the start of every command: `onnxq` is linked without them and
// its run_* functions (app/onnx_helper.cpp) re-execute the same command line in `onnxq-onnx`, the
// build with the ONNX code, whose run_* functions (app/onnx/) do the work.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace onnxq::cli {

struct ConformanceCommandOptions {
  std::vector<std::string> paths;
  std::string filter;
  std::optional<double> rtol;
  std::optional<double> atol;
  bool json = false;     // the JSON report on stdout instead of the text report
  std::string json_out;  // "" = none; also write the JSON report to this file ("-" = as --json)
};
struct RunOptions {
  std::string model;
  std::vector<std::string> inputs;   // NAME=FILE, or FILE for the next unbound graph input
  std::vector<std::string> outputs;  // graph outputs to write; empty: all
  std::string output_dir = ".";
  bool pb = false;
  bool typed_fields = false;
};
struct MakeCaseOptions {
  std::string op;
  std::vector<std::string> attrs;  // k=v
  std::vector<std::string> inputs;
  std::string output_dir;
  std::optional<std::int64_t> opset;
  std::optional<std::int64_t> ir_version;
  std::string name;
  bool typed_fields = false;
  // --from-gguf: cases from a real model's tensor instead of --op/--input
  std::string from_gguf;
  std::string tensor;
  std::optional<std::uint64_t> rows;
  bool all_formats = false;
  std::string dtype;  // f32 (default), f16, bf16
};
struct OnnxExportOptions {  // `onnxq export model.gguf -o model.onnx`
  std::string path;
  std::string output;
  std::string dtype;
  std::vector<std::string> tensors;
  std::string filter;
  bool skip_unknown = false;
};
void run_conformance(const ConformanceCommandOptions& opts);
void run_run(const RunOptions& opts);
void run_make_case(const MakeCaseOptions& opts);
void run_export_onnx(const OnnxExportOptions& opts);

}  // namespace onnxq::cli
