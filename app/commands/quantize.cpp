// onnxq quantize: a whole model to GGUF (IN.gguf / IN.safetensors / index.json, quantize_model.cpp),
// or with --raw float rows (.npy or raw float32) to the packed bytes of one block format, the
// inverse of `dequant --raw`; the library's quantize_rows does the work, byte for byte as ggml.
#include <memory>
#include <string>
#include <vector>

#include "command.hpp"
#include "common_options.hpp"
#include "log.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/decode/quantize_rows.hpp"
#include "onnxq/formats/format.hpp"
#include "onnxq/io/mapped_file.hpp"
#include "onnxq/npy/reader.hpp"
#include "output.hpp"
#include "quantize_model.hpp"
#include "text_table.hpp"

namespace onnxq::cli {
namespace {

// The model mode's options (quantize_model.hpp: IN, -o, --imatrix and --threads too) and --raw's own.
struct QuantizeOptions : ModelQuantizeCliOptions {
  std::string raw_input;
  std::string packed_format;
  std::vector<std::string> shape;  // one word per --shape use; joined with commas
};

[[noreturn]] void usage(const std::string& message) { throw CLI::ValidationError("quantize", message); }

// The target: "gguf:q4_k" (DequantizePacked's id) or the bare name "q4_k" / "Q4_K".
const BlockFormat& target_format(const std::string& name) {
  if (name.empty()) usage("--raw needs the target format: --packed-format gguf:q4_k");
  const BlockFormat* f = find_format(name.starts_with("gguf:") ? std::string_view(name).substr(5) : name);
  if (f == nullptr || !f->is_block_format())
    usage("--packed-format must be one of the 27 block formats (gguf:q4_0 ... gguf:q2_0, see `onnxq formats`), got '" +
          name + "'");
  return *f;
}

// The input array: a float .npy with its own shape, or raw little-endian float32 of --shape.
Tensor read_input(const QuantizeOptions& o, std::shared_ptr<const MappedFile>& keep) {
  keep = MappedFile::open(o.raw_input);
  const std::string where = escape_for_terminal(o.raw_input);
  if (has_npy_magic(keep->bytes())) {
    Tensor t = read_npy(keep->bytes(), keep, where);
    if (!o.shape.empty() && parse_shape("quantize", join_with_commas(o.shape)) != t.shape())
      invalid_input(where + ": the array's shape is " + shape_to_string(t.shape()) + ", --shape says " +
                    join_with_commas(o.shape));
    return t;
  }
  if (o.shape.empty())
    invalid_input(where + ": not a .npy file, so raw float32: give its shape with --shape, e.g. --shape 4096,4096");
  const Shape shape = parse_shape("quantize", join_with_commas(o.shape));
  const std::uint64_t count = shape_element_count(shape);  // throws for a negative size or an overflow
  if (count > keep->bytes().size() / 4 || count * 4 != keep->bytes().size())
    invalid_input(where + ": " + std::to_string(keep->bytes().size()) + " bytes, but --shape " +
                  join_with_commas(o.shape) + " of float32 needs " + std::to_string(count) + " values");
  return Tensor::view(DType::Float, shape, keep->bytes(), keep);
}

void run_quantize(const QuantizeOptions& o) {
  if (o.raw_input.empty() && !o.input.empty()) {
    if (!is_model_input(o.input))
      usage(
          "IN must be a model: a .gguf file (or a shard of one), a .safetensors file or a "
          "model.safetensors.index.json; for float rows give --raw IN");
    if (!o.packed_format.empty() || !o.shape.empty()) usage("--packed-format and --shape go with --raw");
    return run_model_quantize(o);
  }
  if (!o.input.empty()) usage("give either a model IN or --raw ROWS, not both");
  if (!o.type.empty() || o.dry_run || o.json || !o.tensor_types.empty() || !o.keep.empty() || o.allow_requantize ||
      !o.architecture.empty())
    usage(
        "--type, --tensor-type, --keep, --allow-requantize, --arch, --dry-run and --json go with a model IN, not "
        "--raw");
  if (o.raw_input.empty())
    usage("give a model (onnxq quantize IN.gguf -o OUT.gguf --type Q4_K_M) or float rows with --raw IN");
  const BlockFormat& format = target_format(o.packed_format);
  std::shared_ptr<const MappedFile> keep;
  const Tensor input = read_input(o, keep);
  const std::string where = escape_for_terminal(o.raw_input);
  const std::uint64_t n_per_row = quantize_row_length(input, format, where);
  const std::uint64_t rows = input.element_count() / n_per_row;
  std::vector<float> importance;
  if (!o.imatrix.empty())
    importance = importance_weights(read_npy_file(o.imatrix), n_per_row, escape_for_terminal(o.imatrix));
  if (!importance.empty() && !quantize_uses_importance(format))
    log::warn("{} does not use an importance matrix (as in ggml); --imatrix changes nothing", format.gguf_name);

  OutputSink sink = OutputSink::open(o.output.empty() ? "-" : o.output);
  const std::uint64_t row_bytes = quantized_row_bytes(format, n_per_row);
  sink.reserve(rows * row_bytes);
  quantize_tensor_rows(input, format, importance, o.threads, where,
                       [&](std::span<const std::byte> packed) { sink.write(packed.data(), packed.size()); });
  sink.commit();
  log::info("quantized {} rows of {} values from {} to {} ({} bytes)", rows, n_per_row, where, format.gguf_name,
            rows * row_bytes);
}

void add_quantize_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<QuantizeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "quantize",
      "Quantize a model (GGUF or safetensors) to GGUF, or float rows to a block format, byte for byte as ggml");
  cmd->footer(
      "Usage:\n"
      "  onnxq quantize IN -o OUT.gguf --type T [--tensor-type GLOB=TYPE]... [--keep GLOB]... [--imatrix FILE]\n"
      "                 [--allow-requantize] [--arch NAME] [--dry-run] [--json] [--threads N]\n"
      "  onnxq quantize --raw IN --packed-format gguf:q4_k -o OUT.bin [--shape D0,...] [--imatrix W.npy]\n"
      "A model IN is a .gguf (any shard of a split model) with F32/F16/BF16 weights, a .safetensors file or a\n"
      "model.safetensors.index.json. T is a block format (every eligible weight gets it) or a llama-quantize preset\n"
      "(Q4_K_M ...: the same type per tensor as llama-quantize for the architectures llama.cpp knows; "
      "doc/quantize.md).\n"
      "--tensor-type and --keep come before the preset (first match wins); --imatrix reads llama-imatrix's GGUF or\n"
      "older .dat file. Each tensor is read, quantized and written in one pass, a run of rows at a time; the output\n"
      "keeps every metadata key and the tensor order, sets general.file_type and general.quantization_version, and\n"
      "is named only when complete. Already-quantized tensors need --allow-requantize. --dry-run prints the plan.\n"
      "With --raw:\n"
      "IN is a float32, float16 or float64 .npy (its own shape) or raw little-endian float32 (--shape required).\n"
      "Each row (the last dimension, a multiple of the format's block) is quantized alone; the output is the\n"
      "packed blocks, row after row, as `onnxq dequant --raw` reads them. --imatrix gives one weight per column\n"
      "(IQ2_XXS, IQ2_XS and IQ1_S need one). Values must be finite. The bytes equal ggml's\n"
      "(ggml_quantize_chunk) on every CPU and for any --threads. Binary output is never written to a terminal;\n"
      "the file is written unnamed and named only when complete.");
  names_path(
      cmd->add_option("input", opts->input,
                      "The model to quantize: a .gguf file, a .safetensors file or a model.safetensors.index.json"));
  add_model_quantize_options(*cmd, *opts);
  cmd->add_option("--packed-format", opts->packed_format,
                  "With --raw: the target block format, e.g. gguf:q4_k (or q4_k)");
  names_path(cmd->add_option("--raw", opts->raw_input, "The input rows: a .npy file, or raw float32 with --shape"));
  names_path(
      cmd->add_option("-o,--output", opts->output,
                      "The output file: the GGUF model, or with --raw the packed bytes ('-' for standard output)"));
  repeatable_value(
      cmd->add_option("--shape", opts->shape, "For raw float32 input: its shape, comma-separated, e.g. 4096,4096"));
  names_path(cmd->add_option("--imatrix", opts->imatrix,
                             "Importance weights: for a model, llama-imatrix's GGUF or .dat file; with --raw, a 1-D "
                             "float .npy, one weight per column"));
  add_threads_option(*cmd, opts->threads);
  cmd->callback([opts] { run_quantize(*opts); });
}

const CommandRegistration quantize_registration{"quantize", 36, &add_quantize_command};

}  // namespace
}  // namespace onnxq::cli
