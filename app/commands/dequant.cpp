// onnxq dequant: decode GGUF tensors (or raw packed bytes: DequantizePacked itself)
// into .npy or raw arrays.

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.hpp"
#include "common_options.hpp"
#include "decoded_stream.hpp"
#include "log.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/gguf/model.hpp"
#include "onnxq/gguf/tensor_reader.hpp"
#include "onnxq/io/tensor_file_names.hpp"
#include "onnxq/ops/dequantize_packed.hpp"
#include "output.hpp"
#include "partial_model.hpp"
#include "progress.hpp"
#include "tensor_input.hpp"
#include "tensor_selection.hpp"
#include "text_table.hpp"

namespace onnxq::cli {
namespace {

namespace fs = std::filesystem;

struct DequantOptions {
  std::string path;
  std::vector<std::string> tensors;
  std::string filter;
  bool all = false;
  bool skip_unknown = false;
  std::string dtype;                 // empty: f32, or an integer tensor's own dtype
  std::vector<std::string> formats;  // npy|raw, and with --raw also a packed format id
  std::string packed_format;
  std::string output;
  std::string out_dir;
  std::string raw_input;
  std::vector<std::string> shape;  // one word per --shape use; joined with commas
  int threads = 0;
};

[[noreturn]] void usage(const std::string& message) { throw CLI::ValidationError("dequant", message); }

std::optional<DType> requested_dtype(const std::string& name) {
  if (name.empty()) return std::nullopt;
  const auto dtype = parse_dtype_name(name);
  if (!dtype ||
      !(*dtype == DType::Float || *dtype == DType::Float16 || *dtype == DType::BFloat16 || *dtype == DType::Double))
    usage("--dtype must be f32, f16, bf16 or f64, got '" + name + "'");
  return dtype;
}

// Splits --format values into the output container and (raw mode) the packed format id.
struct FormatChoice {
  bool npy = true;
  std::string packed;
};

FormatChoice parse_formats(const DequantOptions& o) {
  FormatChoice c;
  bool container_set = false;
  for (const std::string& f : o.formats) {
    if (f == "npy" || f == "raw") {
      if (container_set && c.npy != (f == "npy")) usage("--format npy and --format raw both given");
      c.npy = f == "npy";
      container_set = true;
    } else if (f.starts_with("gguf:") && !o.raw_input.empty()) {
      c.packed = f;
    } else {
      usage("--format must be npy or raw" +
            std::string(o.raw_input.empty() ? "" : ", or a packed format id such as gguf:q4_0") + ", got '" + f + "'");
    }
  }
  if (!o.packed_format.empty()) {
    if (!c.packed.empty() && c.packed != o.packed_format) usage("two different packed formats given");
    c.packed = o.packed_format;
  }
  return c;
}

void write_one(const std::string& target, const DecodedStream& stream, const std::string& what) {
  OutputSink sink = OutputSink::open(target);
  write_decoded(sink, stream);
  sink.commit();
  log::info("wrote {} as {} {} to {}", what, dtype_info(stream.dtype).short_name, shape_to_string(stream.shape),
            target == "-" ? "standard output" : escape_for_terminal(target));
}

void run_raw(const DequantOptions& o, const FormatChoice& fc) {
  if (!o.path.empty() || !o.tensors.empty() || !o.filter.empty() || o.all)
    usage("--raw decodes one byte string: it takes no FILE, --tensor, --filter or --all");
  if (fc.packed.empty()) usage("--raw needs the packed format: --packed-format gguf:q4_0 (or --format gguf:q4_0)");
  if (o.shape.empty()) usage("--raw needs --shape, e.g. --shape 2,32");
  if (!o.out_dir.empty()) usage("--raw writes one array: use -o PATH");
  DequantizePackedAttributes attrs{fc.packed, parse_shape("dequant", join_with_commas(o.shape)),
                                   requested_dtype(o.dtype).value_or(DType::Float)};

  const InputBytes in = read_input_bytes(o.raw_input);
  const BlockFormat& format = check_dequantize_packed(attrs, in.bytes.size());
  const PackedBytes packed(format, in.bytes);
  write_one(o.output.empty() ? "-" : o.output,
            DecodedStream{&packed, attrs.shape, attrs.output_dtype, fc.npy, o.threads}, in.name);
}

void run_gguf(const DequantOptions& o, const FormatChoice& fc) {
  if (o.path.empty()) usage("give a GGUF FILE, or --raw IN for packed bytes");
  if (!fc.packed.empty()) usage("a packed format id is only for --raw; GGUF tensors carry their own type");
  if (!o.shape.empty()) usage("--shape is only for --raw; GGUF tensors carry their own shape");
  if (o.tensors.empty() && o.filter.empty() && !o.all)
    usage("choose tensors with --tensor NAME, --filter GLOB or --all");
  if (!o.output.empty() && !o.out_dir.empty()) usage("give either -o or --out-dir, not both");
  const std::optional<DType> dtype = requested_dtype(o.dtype);

  const GgufModel model = open_present_shards(o.path);
  // --all and --filter speak of tensors in the missing shards too: not a part of them.
  if (!model.missing_shards().empty() && (o.all || !o.filter.empty()))
    fail(ErrorKind::Io, o.path + ": " + (o.all ? std::string("--all") : "--filter") +
                            " needs every shard of the model, and these are missing: " + missing_shards_text(model) +
                            " (--tensor NAME reads a tensor of the shards present)");
  const auto chosen = decodable_tensors(model, select_tensors(model, o.tensors, o.filter, o.all), o.skip_unknown);

  // Where each tensor goes: decided, like the dtypes, before anything is written. -o names a
  // directory only when it is one or ends in '/': a file name given for several tensors is a slip.
  std::string dir;
  std::string single_target;
  if (!o.out_dir.empty()) {
    dir = o.out_dir;
  } else if (o.output == "-") {
    if (chosen.size() > 1) usage("several tensors cannot all go to standard output; use --out-dir DIR");
    single_target = "-";
  } else if (!o.output.empty() && (o.output.ends_with('/') || fs::is_directory(o.output))) {
    dir = o.output;
  } else if (!o.output.empty()) {
    if (chosen.size() > 1)
      usage("-o " + o.output + " names one file, but " + std::to_string(chosen.size()) +
            " tensors were chosen; write them with --out-dir DIR (or -o DIR/)");
    single_target = o.output;
  } else {
    dir = ".";
  }
  std::vector<std::string> file_names, tensor_names;
  if (!dir.empty())
    for (const TensorInfo* t : chosen) {
      file_names.push_back(tensor_file_name(t->name, fc.npy ? ".npy" : ".bin"));
      tensor_names.push_back(escape_for_terminal(t->name));
    }
  if (!dir.empty() && !fs::is_directory(dir)) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) fail(ErrorKind::Io, "cannot create the output directory " + dir + ": " + ec.message());
  }
  if (!dir.empty()) check_file_names_distinct(dir, file_names, tensor_names);

  std::vector<TensorReader> readers;
  for (const TensorInfo* t : chosen) readers.emplace_back(model, *t);
  std::vector<std::pair<std::string, DecodedStream>> jobs;
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    const TensorInfo* t = chosen[i];
    const DType out = dtype.value_or(default_decode_dtype(*t->format));
    if (!can_decode_to(*t->format, out))
      invalid_argument("tensor '" + escape_for_terminal(t->name) + "' of type " + std::string(t->format->gguf_name) +
                       " cannot be written as " + std::string(dtype_info(out).short_name));
    const std::string target = single_target.empty() ? (fs::path(dir) / file_names[i]).string() : single_target;
    jobs.emplace_back(target, DecodedStream{&readers[i], t->onnx_shape(), out, fc.npy, o.threads});
  }
  std::uint64_t total = 0;
  for (const TensorInfo* t : chosen) total += t->byte_size;
  Progress progress("dequant", total);
  StreamBuffers buffers;  // one set for all the tensors: their pages are faulted in once
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    auto& [target, stream] = jobs[i];
    progress.set_label(std::string(chosen[i]->name));
    stream.progress = &progress;
    stream.buffers = &buffers;
    write_one(target, stream, "'" + escape_for_terminal(chosen[i]->name) + "'");
  }
  progress.finish();
}

void run_dequant(const DequantOptions& o) {
  const FormatChoice fc = parse_formats(o);
  if (!o.raw_input.empty())
    run_raw(o, fc);
  else
    run_gguf(o, fc);
}

void add_dequant_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<DequantOptions>();
  CLI::App* cmd = app.add_subcommand(
      "dequant", "Decode GGUF tensors (27 block formats and the plain types) into .npy or raw arrays");
  cmd->footer(
      "Usage forms:\n"
      "  onnxq dequant FILE --tensor NAME [--tensor NAME ...] | --filter GLOB | --all [options]\n"
      "  onnxq dequant --raw IN|- --packed-format gguf:q4_0 --shape 2,32 [options]   (DequantizePacked itself)\n"
      "Shapes are ONNX order [..., ne1, ne0]. BFLOAT16 has no numpy dtype: .npy files carry its bit patterns\n"
      "as '<u2' (uint16); raw output is the plain little-endian 2-byte words. Binary output is never written\n"
      "to a terminal; each file is written unnamed and named only when complete.\n"
      "File names: in a directory (--out-dir, or -o DIR), each tensor is written to its name percent-encoded\n"
      "plus .npy (.bin with --format raw): A-Z a-z 0-9 . _ - stay, except a leading '.'; every other byte\n"
      "('%', '/', spaces, control bytes, each byte of a UTF-8 name from 0x80 up) becomes %XX, and the empty\n"
      "name is %.npy. So blk.0.attn_q.weight.npy, a%2Fb.npy for a/b, %2Ehidden.npy for .hidden: two tensors\n"
      "never share a file, no name leaves the directory, and urllib.parse.unquote gives the name back. On a\n"
      "file system that ignores case, two names that differ only in case are refused (exit 3) before anything\n"
      "is written.\n"
      "A split model with missing shards decodes the tensors of the shards present (after a warning); a tensor\n"
      "not among them, and --all or --filter (which would miss theirs), is an I/O error (exit 3) that names\n"
      "the missing shards, before anything is written.");
  add_gguf_file_argument(*cmd, opts->path, Presence::Optional);
  repeatable_value(cmd->add_option("--tensor", opts->tensors, "Tensor to decode (repeatable)"));
  add_filter_option(*cmd, opts->filter);
  cmd->add_flag("--all", opts->all, "Decode every tensor");
  cmd->add_flag("--skip-unknown", opts->skip_unknown,
                "Leave out tensors of types onnxq does not know (naming them), instead of failing");
  cmd->add_option("--dtype", opts->dtype,
                  "Output type: f32, f16, bf16 or f64 (default f32; integer tensors default to their own type)");
  repeatable_value(cmd->add_option(
      "--format", opts->formats,
      "Output container: npy (default) or raw. With --raw, a value gguf:* names the packed format instead"));
  cmd->add_option("--packed-format", opts->packed_format, "With --raw: the DequantizePacked format id, e.g. gguf:q4_k");
  names_path(cmd->add_option("-o,--output", opts->output,
                             "Output: a file for one tensor; a directory (one that exists, or PATH/) for several; "
                             "'-' for standard output"));
  names_path(cmd->add_option("--out-dir", opts->out_dir, "Directory for the output files (created if missing)"));
  names_path(cmd->add_option("--raw", opts->raw_input,
                             "Decode packed bytes from this file ('-' = standard input) instead of a GGUF tensor"));
  // Kept as the words given (joined with commas) so that "[]" and "" still name a scalar shape.
  repeatable_value(cmd->add_option("--shape", opts->shape,
                                   "With --raw: the output shape, comma-separated, e.g. 2,32 (repeatable: the "
                                   "uses add up)"));
  add_threads_option(*cmd, opts->threads);
  cmd->callback([opts] { run_dequant(*opts); });
}

const CommandRegistration dequant_registration{"dequant", 35, &add_dequant_command};

}  // namespace
}  // namespace onnxq::cli
