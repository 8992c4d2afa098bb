// onnxq convert-endian: a GGUF file in the other byte order (header, metadata and every tensor's
// multi-byte numbers, as the format rows' field kinds say), decoding to the same values.
#include <bit>
#include <memory>
#include <string>

#include "command.hpp"
#include "common_options.hpp"
#include "gguf_output.hpp"
#include "io_settings.hpp"
#include "log.hpp"
#include "onnxq/core/error.hpp"

namespace onnxq::cli {
namespace {

struct ConvertOptions {
  std::string path;
  GgufDestination destination;
  std::string to;
};

void run_convert_endian(const ConvertOptions& opts) {
  check_destination(opts.destination, opts.path, false);
  bool big = std::endian::native == std::endian::big;
  if (opts.to == "big")
    big = true;
  else if (opts.to == "little")
    big = false;
  else if (opts.to != "native")
    throw CLI::ValidationError("--to", "expected big, little or native, got '" + opts.to + "'");

  const GgufModel model = GgufModel::open(opts.path, ShardPolicy::OnlyThisFile, io_options());
  const GgufFile& file = model.primary();
  std::vector<GgufWriterTensor> tensors;
  for (const TensorInfo& t : model.tensors()) tensors.push_back(gguf_writer_tensor(model, t));
  if (file.big_endian != big) {
    const auto unknown = gguf_unconvertible_tensors(tensors);
    if (!unknown.empty()) {
      std::string list;
      for (const auto& u : unknown) list += (list.empty() ? "" : ", ") + u;
      fail(ErrorKind::Unsupported, opts.path + ": cannot convert tensors of types onnxq does not know: " + list);
    }
  } else {
    log::info("{} is {}-endian already: copied as it is", opts.path, big ? "big" : "little");
  }
  GgufWriteOptions options;
  options.version = file.version;
  options.big_endian = big;
  write_gguf_file(model, file, GgufMetadata::from_records(file.metadata), options, opts.destination);
}

void add_convert_endian_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<ConvertOptions>();
  CLI::App* cmd = app.add_subcommand("convert-endian", "Write a GGUF file in the other byte order");
  cmd->footer(
      "Converts the header, the metadata and every tensor: plain types (F32, F16, BF16, F64, I16, I32, I64) and "
      "the binary16/binary32 scales and int16 sums inside the blocks of all 27 block formats; single bytes stay. "
      "The result decodes to exactly the values of the input. A file with a tensor of a type onnxq does not "
      "know is refused, naming the tensors, before anything is written. A shard of a split model is "
      "converted alone.");
  add_gguf_file_argument(*cmd, opts->path);
  add_destination_options(*cmd, opts->destination);
  cmd->add_option("--to", opts->to, "The byte order to write: big, little or native")->required();
  cmd->callback([opts] { run_convert_endian(*opts); });
}

const CommandRegistration convert_endian_registration{"convert-endian", 58, &add_convert_endian_command};

}  // namespace
}  // namespace onnxq::cli
