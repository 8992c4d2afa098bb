// onnxq make-case --from-gguf: DequantizePacked node tests cut from a real model's tensors (the
// case itself is the library's, onnxq/onnx/gguf_case.hpp), one folder per tensor or per format.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <set>

#include "io_settings.hpp"
#include "onnx/case_folder.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/onnx/gguf_case.hpp"

namespace onnxq::cli {
namespace {

void write_one(const GgufModel& model, const TensorInfo& tensor, const MakeCaseOptions& opts,
               const std::filesystem::path& dir) {
  // --dtype is f32, f16, bf16 or f64 (CLI::IsMember in app/commands/make_case.cpp).
  const DType dtype = opts.dtype.empty() ? DType::Float : *parse_dtype_name(opts.dtype);
  const GgufNodeCase c = gguf_node_case(model, tensor, opts.rows, dtype);
  write_case_folder(dir, c.model, {c.input}, {c.output}, opts.typed_fields);
  std::cout << (dir / "model.onnx").string() << ": DequantizePacked " << tensor.format->format_id << " from '"
            << tensor.name << "', output " << dtype_info(c.output.dtype()).onnx_name << " "
            << shape_to_string(c.output.shape()) << '\n';
}

}  // namespace

void run_make_case_from_gguf(const MakeCaseOptions& opts) {
  if (!opts.op.empty() || !opts.inputs.empty() || !opts.attrs.empty())
    throw CLI::ValidationError("--from-gguf", "takes no --op, --attr or --input (the case is DequantizePacked)");
  if (opts.all_formats == !opts.tensor.empty())
    throw CLI::ValidationError("--from-gguf", "needs --tensor NAME or --all-formats (one of them)");
  const GgufModel model = GgufModel::open(opts.from_gguf, ShardPolicy::All, io_options());
  const std::filesystem::path dir(opts.output_dir);
  if (!opts.all_formats) {
    const TensorInfo* t = model.find_tensor(opts.tensor);
    if (!t) invalid_input(opts.from_gguf + ": no tensor named '" + opts.tensor + "' (see `onnxq list`)");
    return write_one(model, *t, opts, dir);
  }
  // One folder per block format, from its first tensor: DIR/dequantize_packed_<format>.
  std::set<const BlockFormat*> done;
  for (const TensorInfo& t : model.tensors()) {
    if (!t.format || !t.format->is_block_format() || !done.insert(t.format).second) continue;
    write_one(model, t, opts,
              dir / ("dequantize_packed_" + std::string(t.format->format_id.substr(5))));  // after "gguf:"
  }
  if (done.empty()) invalid_input(opts.from_gguf + ": no tensor of a DequantizePacked block format");
}

}  // namespace onnxq::cli
