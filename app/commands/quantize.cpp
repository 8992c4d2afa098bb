// onnxq quantize: a whole model to GGUF (IN.gguf / IN.safetensors / index.json, quantize_model.cpp),
// or with --raw float rows (.npy or raw float32) to the packed bytes of one block format, the
// inverse of `dequant --raw`; the library's quantize_rows does the work, byte for byte as ggml.
#include <algorithm>
#include <cstring>
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

struct QuantizeOptions {
  std::string raw_input;
  std::string packed_format;
  std::string output;
  std::vector<std::string> shape;  // one word per --shape use; joined with commas
  std::string imatrix;
  int threads = 0;
  ModelQuantizeCliOptions model;  // the model mode's own options (and its IN)
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

bool is_npy(const MappedFile& file) {
  return file.bytes().size() >= 6 && std::memcmp(file.bytes().data(), "\x93NUMPY", 6) == 0;
}

// The input array: a float .npy with its own shape, or raw little-endian float32 of --shape.
Tensor read_input(const QuantizeOptions& o, std::shared_ptr<const MappedFile>& keep) {
  keep = MappedFile::open(o.raw_input);
  const std::string where = escape_for_terminal(o.raw_input);
  if (is_npy(*keep)) {
    Tensor t = read_npy(keep->bytes(), keep, where);
    if (t.dtype() != DType::Float && t.dtype() != DType::Float16 && t.dtype() != DType::Double)
      invalid_input(where + ": a " + std::string(dtype_info(t.dtype()).short_name) +
                    " array; quantize takes float32, float16 or float64");
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

// One weight per column: a 1-D float .npy of the rows' length.
std::vector<float> read_importance(const std::string& path, std::uint64_t n_per_row) {
  if (path.empty()) return {};
  const Tensor t = read_npy_file(path);
  const std::string where = escape_for_terminal(path);
  if (t.rank() != 1 || t.element_count() != n_per_row)
    invalid_input(where + ": the importance matrix has shape " + shape_to_string(t.shape()) + "; it must be [" +
                  std::to_string(n_per_row) + "], one weight per column");
  std::vector<float> w(n_per_row);
  for (std::uint64_t i = 0; i < n_per_row; ++i) {
    if (t.dtype() == DType::Float)
      w[i] = t.at<float>(i);
    else if (t.dtype() == DType::Double)
      w[i] = static_cast<float>(t.at<double>(i));
    else
      invalid_input(where + ": the importance matrix must be float32 or float64");
  }
  return w;
}

void run_quantize(const QuantizeOptions& o) {
  if (o.raw_input.empty() && !o.model.input.empty()) {
    if (!is_model_input(o.model.input))
      usage(
          "IN must be a model: a .gguf file (or a shard of one), a .safetensors file or a "
          "model.safetensors.index.json; for float rows give --raw IN");
    if (!o.packed_format.empty() || !o.shape.empty()) usage("--packed-format and --shape go with --raw");
    ModelQuantizeCliOptions m = o.model;
    m.output = o.output;
    m.imatrix = o.imatrix;
    m.threads = o.threads;
    run_model_quantize(m);
    return;
  }
  if (!o.model.input.empty()) usage("give either a model IN or --raw ROWS, not both");
  if (!o.model.type.empty() || o.model.dry_run || o.model.json || !o.model.tensor_types.empty() ||
      !o.model.keep.empty() || o.model.allow_requantize || !o.model.architecture.empty())
    usage(
        "--type, --tensor-type, --keep, --allow-requantize, --arch, --dry-run and --json go with a model IN, not "
        "--raw");
  if (o.raw_input.empty())
    usage("give a model (onnxq quantize IN.gguf -o OUT.gguf --type Q4_K_M) or float rows with --raw IN");
  const BlockFormat& format = target_format(o.packed_format);
  std::shared_ptr<const MappedFile> keep;
  const Tensor input = read_input(o, keep);
  const std::string where = escape_for_terminal(o.raw_input);
  if (input.rank() == 0) invalid_input(where + ": a scalar; quantize takes rows (at least one dimension)");
  const std::uint64_t n_per_row = static_cast<std::uint64_t>(input.shape().back());
  if (n_per_row == 0 || n_per_row % format.block_elements != 0)
    invalid_input(where + ": the last dimension is " + std::to_string(n_per_row) + ", not a multiple of " +
                  std::to_string(format.block_elements) + " (one " + std::string(format.gguf_name) + " block)");
  const std::uint64_t rows = input.element_count() / n_per_row;
  const std::vector<float> importance = read_importance(o.imatrix, n_per_row);
  if (!importance.empty() && !quantize_uses_importance(format))
    log::warn("{} does not use an importance matrix (as in ggml); --imatrix changes nothing", format.gguf_name);

  OutputSink sink = OutputSink::open(o.output.empty() ? "-" : o.output);
  const std::uint64_t row_bytes = quantized_row_bytes(format, n_per_row);
  // Runs of rows worth about 16 MiB of input: memory stays bounded whatever the input's size.
  const std::uint64_t batch = std::max<std::uint64_t>(1, (std::uint64_t{4} << 20) / n_per_row);
  std::vector<float> widened;
  std::vector<std::byte> packed;
  sink.reserve(rows * row_bytes);
  for (std::uint64_t first = 0; first < rows; first += batch) {
    const std::uint64_t count = std::min(batch, rows - first);
    const std::uint64_t first_value = first * n_per_row, values = count * n_per_row;
    QuantizeRequest request{&format, input.dtype(), nullptr, count, n_per_row, importance, nullptr};
    const std::byte* src = input.bytes().data() + first_value * (dtype_info(input.dtype()).bits / 8);
    if (input.dtype() == DType::Double) {  // float64 rounds to the nearest float32 first
      widened.resize(values);
      for (std::uint64_t i = 0; i < values; ++i) widened[i] = static_cast<float>(input.at<double>(first_value + i));
      request.src_dtype = DType::Float;
      request.src = widened.data();
    } else if (reinterpret_cast<std::uintptr_t>(src) % 4 != 0) {  // a view at an odd offset: copy it aligned
      widened.resize(values * dtype_info(input.dtype()).bits / 32 + 1);
      std::memcpy(widened.data(), src, values * dtype_info(input.dtype()).bits / 8);
      request.src = widened.data();
    } else {
      request.src = src;
    }
    packed.resize(count * row_bytes);
    request.dst = packed.data();
    try {
      quantize_rows(request, o.threads);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::InvalidInput) throw;
      // The library counts rows from the batch; the user counts them from the file.
      std::string message = e.what();
      if (message.starts_with("row ")) {
        const std::size_t end = message.find_first_not_of("0123456789", 4);
        message = "row " + std::to_string(first + std::stoull(message.substr(4, end - 4))) + message.substr(end);
      }
      invalid_input(where + ": " + message);
    }
    sink.write(packed.data(), packed.size());
  }
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
      cmd->add_option("input", opts->model.input,
                      "The model to quantize: a .gguf file, a .safetensors file or a model.safetensors.index.json"));
  add_model_quantize_options(*cmd, opts->model);
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
