// onnxq quantize's model mode: options in, the library's report out (a table, or JSON).
#include "quantize_model.hpp"

#include <cstdio>
#include <iostream>
#include <optional>

#include "common_options.hpp"
#include "io_settings.hpp"
#include "log.hpp"
#include "onnxq/convert/model_quantizer.hpp"
#include "onnxq/model/file_type.hpp"
#include "output.hpp"
#include "progress.hpp"
#include "text_table.hpp"

namespace onnxq::cli {
namespace {

[[noreturn]] void model_usage(const std::string& option, const std::string& message) {
  throw CLI::ValidationError(option, message);
}

// --tensor-type GLOB=TYPE: TYPE any tensor type onnxq writes (q4_k, Q8_0, f16 ...).
std::vector<TensorTypeOverride> parse_tensor_types(const std::vector<std::string>& words) {
  std::vector<TensorTypeOverride> out;
  for (const std::string& w : words) {
    const std::size_t eq = w.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == w.size())
      model_usage("--tensor-type", "expected GLOB=TYPE (e.g. 'blk.*.ffn_down.weight=q6_k'), got '" + w + "'");
    const std::string type = w.substr(eq + 1);
    const BlockFormat* f = find_override_type(type);
    if (f == nullptr)
      model_usage("--tensor-type", "'" + type + "' is not a block format or a float type (see `onnxq formats`)");
    out.push_back({w.substr(0, eq), f->ggml_type});
  }
  return out;
}

std::string bpw_text(double bpw) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", bpw);
  return buffer;
}

void print_plan(const ModelQuantizeReport& r) {
  TextTable table({"tensor", "shape", "from", "to", "bytes before", "bytes after", "reason"},
                  {TextTable::Align::Left, TextTable::Align::Left, TextTable::Align::Left, TextTable::Align::Left,
                   TextTable::Align::Right, TextTable::Align::Right, TextTable::Align::Left});
  for (const QuantizedTensorRow& t : r.tensors)
    table.add_row({escape_for_terminal(t.name), shape_to_string(Shape(t.ne.begin(), t.ne.end())),
                   ggml_type_display_name(t.plan.from_type), ggml_type_display_name(t.plan.to_type),
                   std::to_string(t.plan.bytes_before), std::to_string(t.plan.bytes_after),
                   escape_for_terminal(t.plan.reason) + (t.importance ? " (imatrix)" : "")});
  table.print(std::cout);
}

std::string summary(const ModelQuantizeReport& r) {
  std::size_t quantized = 0;
  for (const QuantizedTensorRow& t : r.tensors) quantized += !t.plan.copy;
  return std::to_string(r.tensors.size()) + " tensors (" + std::to_string(quantized) + " converted, " +
         std::to_string(r.tensors.size() - quantized) + " copied), " + std::to_string(r.elements) +
         " weights: " + std::to_string(r.bytes_before) + " bytes (" + bpw_text(r.bits_per_weight_before()) +
         " bpw) -> " + std::to_string(r.bytes_after) + " bytes (" + bpw_text(r.bits_per_weight_after()) +
         " bpw); file type " + std::string(llama_file_type_name(r.file_type)) + " (" + std::to_string(r.file_type) +
         ")";
}

}  // namespace

bool is_model_input(const std::string& input) {
  return input.ends_with(".gguf") || input.ends_with(".safetensors") || input.ends_with(".json");
}

void add_model_quantize_options(CLI::App& cmd, ModelQuantizeCliOptions& o) {
  std::string presets;
  for (const std::string& name : quantize_preset_names()) presets += (presets.empty() ? "" : ", ") + name;
  cmd.add_option("--type", o.type,
                 "The model's type: a block format for every eligible weight (q4_k, q8_0, iq4_xs ...; see `onnxq "
                 "formats`) or a llama-quantize preset: " +
                     presets);
  repeatable_value(cmd.add_option("--tensor-type", o.tensor_types,
                                  "GLOB=TYPE: tensors whose name matches GLOB get TYPE (repeatable; the first "
                                  "match wins over the preset)"));
  repeatable_value(
      cmd.add_option("--keep", o.keep, "GLOB: tensors whose name matches are copied as they are (repeatable)"));
  cmd.add_flag("--allow-requantize", o.allow_requantize,
               "Quantize tensors that are already quantized (decoded exactly first); else they are refused");
  cmd.add_option("--arch", o.architecture, "Safetensors input: the general.architecture to write (default: unknown)");
  cmd.add_flag("--dry-run", o.dry_run,
               "Print the plan (one row per tensor, totals, bits per weight) and write nothing");
  add_json_flag(cmd, o.json, "the plan and the totals");
}

void run_model_quantize(const ModelQuantizeCliOptions& o) {
  if (o.type.empty()) model_usage("--type", "give the model's type: --type Q4_K_M (a preset) or --type q4_k");
  if (o.output.empty() && !o.dry_run) model_usage("-o", "give the output file: -o OUT.gguf (or --dry-run)");
  ModelQuantizeOptions options;
  options.plan.type = o.type;
  options.plan.tensor_types = parse_tensor_types(o.tensor_types);
  options.plan.keep = o.keep;
  options.plan.allow_requantize = o.allow_requantize;
  options.imatrix = o.imatrix;
  options.architecture = o.architecture;
  options.threads = o.threads;
  options.io = io_options();
  if (!o.architecture.empty() && !is_safetensors_input(o.input))
    log::warn("--arch applies to safetensors input; a GGUF model keeps its general.architecture");

  ModelQuantizeReport report;
  if (o.dry_run) {
    report = plan_model_quantization(o.input, options);
  } else {
    std::optional<Progress> progress;
    report = quantize_model(
        o.input, o.output, options,
        [&progress](std::uint64_t advance, std::uint64_t total) {
          if (!progress) progress.emplace("quantize", total);
          progress->add(advance);
        },
        [](const std::string& path, const AtomicFile::Options& fo) { return create_output_file(path, fo); });
    if (progress) progress->finish();
  }
  if (o.json) {
    std::cout << model_quantize_report_json(report, o.input, o.output, o.dry_run, o.type) << '\n';
    return;
  }
  if (o.dry_run) {
    print_plan(report);
    std::cout << summary(report) << "; " << report.file_size << " bytes; nothing written\n";
    return;
  }
  log::info("{}: {}; {} bytes", escape_for_terminal(o.output), summary(report), report.file_size);
}

}  // namespace onnxq::cli
