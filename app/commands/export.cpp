// onnxq export: dequantize a GGUF model's tensors into one safetensors file (or HF-style
// shards plus an index: the library's plan, onnxq/onnx/safetensors_export.hpp), streamed through a
// reused buffer so memory stays bounded; or, for an output named .onnx, write an ONNX graph over
// the .gguf's bytes (app/onnx/export_onnx.cpp).

#include <chrono>
#include <memory>

#include "byte_size.hpp"
#include "command.hpp"
#include "common_options.hpp"
#include "decoded_stream.hpp"
#include "io_settings.hpp"
#include "log.hpp"
#include "onnx_commands.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/decode/isa.hpp"
#include "onnxq/gguf/tensor_reader.hpp"
#include "onnxq/io/file_set.hpp"
#include "onnxq/npy/safetensors_writer.hpp"
#include "onnxq/onnx/safetensors_export.hpp"
#include "output.hpp"
#include "progress.hpp"
#include "tensor_selection.hpp"

namespace onnxq::cli {
namespace {

// The .onnx output's options (onnx_commands.hpp) and those of the safetensors output.
struct ExportOptions : OnnxExportOptions {
  std::string max_shard_size;
  int threads = 0;
};

// Streams one tensor's little-endian values, as dequant does (decoded_stream.hpp).
void write_tensor(const GgufModel& model, const SafetensorsExportTensor& t, int threads, OutputSink& sink,
                  Progress& progress, StreamBuffers& buffers) {
  const auto start = std::chrono::steady_clock::now();
  progress.set_label(std::string(t.info->name));
  const TensorReader reader(model, *t.info);
  write_decoded(sink, DecodedStream{&reader, t.info->onnx_shape(), t.dtype, false, threads, &progress, &buffers});
  log::debug("export: {} {} -> {} ({} bytes) in {:.3f} ms", t.info->name, t.info->format->gguf_name,
             safetensors_dtype(t.dtype), t.bytes,
             std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
}

// The output's extension chooses the format; anything else would be a file of the wrong kind.
bool is_onnx_output(const ExportOptions& opts) {
  if (opts.output == "-" || opts.output.ends_with(".safetensors")) return false;
  if (!opts.output.ends_with(".onnx"))
    throw CLI::ValidationError("-o",
                               opts.output + ": the name must end in .safetensors or .onnx (the format it chooses)");
  if (!opts.max_shard_size.empty())
    throw CLI::ValidationError("--max-shard-size", "applies to .safetensors only; an .onnx holds no tensor data");
  return true;
}

void run_export(const ExportOptions& opts) {
  if (is_onnx_output(opts)) return run_export_onnx(opts);
  const std::optional<DType> requested = opts.dtype.empty() ? std::nullopt : parse_dtype_name(opts.dtype);
  std::uint64_t limit = 0;
  try {
    if (!opts.max_shard_size.empty()) limit = parse_byte_size(opts.max_shard_size);
  } catch (const Error& e) {
    throw CLI::ValidationError("--max-shard-size", e.what());  // a malformed option: a usage error
  }
  const GgufModel model = GgufModel::open(opts.path, ShardPolicy::All, io_options());
  const auto selected = decodable_tensors(
      model, select_tensors(model, opts.tensors, opts.filter, opts.tensors.empty() && opts.filter.empty()),
      opts.skip_unknown);

  const SafetensorsExportPlan plan = plan_safetensors_export(model, selected, requested, opts.output, limit);
  if (plan.files.size() > 1 && opts.output == "-")
    throw CLI::ValidationError("--max-shard-size", "the model is split into " + std::to_string(plan.files.size()) +
                                                       " files, which need -o FILE, not standard output");
  log::info("export: {} tensors, {} -> {} bytes in {} file(s)", selected.size(), plan.bytes_in, plan.bytes_out,
            plan.files.size());
  log::debug("export: {} threads (0: all), ISA {}", opts.threads, active_isa());

  // Every file stays a temporary until all are written: an error leaves no partial set.
  std::vector<OutputSink> sinks;
  {
    Progress progress("export", plan.bytes_in);
    StreamBuffers buffers;  // one set for all the tensors: their pages are faulted in once
    for (const SafetensorsExportFile& file : plan.files) {
      sinks.push_back(OutputSink::open(file.name));
      sinks.back().write(file.header.data(), file.header.size());
      for (const SafetensorsExportTensor& t : file.tensors)
        write_tensor(model, t, opts.threads, sinks.back(), progress, buffers);
    }
  }
  std::optional<OutputSink> index;
  if (!plan.index_name.empty()) {
    index.emplace(OutputSink::open(plan.index_name));
    index->write(plan.index_text.data(), plan.index_text.size());
  }
  if (sinks.size() == 1 && !index) return sinks.front().commit();  // standard output, perhaps
  FileSet set;  // several files (never stdout): all are named, or none
  for (OutputSink& sink : sinks) set.add(*sink.file());
  if (index) set.add(*index->file());
  set.commit();
}

void add_export_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<ExportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "export",
      "Dequantize a GGUF model's tensors into a safetensors file (or shards), or write an ONNX graph over them");
  add_gguf_file_argument(*cmd, opts->path);
  names_path(
      cmd->add_option("-o,--output", opts->output,
                      "The .safetensors file ('-' for stdout) or the .onnx graph to write; the extension chooses"))
      ->required();
  cmd->add_option("--dtype", opts->dtype,
                  "Float output type: bf16, f16 or f32 (default: f32 for quantized tensors, a plain float tensor's own "
                  "type); integer tensors always keep theirs")
      ->check(CLI::IsMember({"bf16", "f16", "f32"}));
  repeatable_value(cmd->add_option("--tensor", opts->tensors, "Only this tensor; repeatable"));
  add_filter_option(*cmd, opts->filter);
  cmd->add_option("--max-shard-size", opts->max_shard_size,
                  "Split into NAME-0000K-of-0000N.safetensors of at most SIZE (e.g. 5GB, 2GiB) plus "
                  "NAME.safetensors.index.json");
  cmd->add_flag("--skip-unknown", opts->skip_unknown,
                "Leave out tensors of types onnxq does not know (naming them), instead of failing");
  add_threads_option(*cmd, opts->threads);
  cmd->footer(
      "Shapes are in ONNX/PyTorch order (GGUF ne reversed). __metadata__ holds \"format\": \"pt\" and the GGUF's "
      "string-valued general.* keys. Files are written to temporaries and renamed only when all are complete. "
      "An .onnx output holds one DequantizePacked node per quantized tensor (Identity or Cast for a plain one) "
      "whose weights are external data pointing into the .gguf itself, which must lie in the .onnx's folder or "
      "below it; nothing is copied.");
  cmd->callback([opts] { run_export(*opts); });
}

const CommandRegistration export_registration{"export", 55, &add_export_command};

}  // namespace
}  // namespace onnxq::cli
