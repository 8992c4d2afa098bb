// onnxq export model.gguf -o model.onnx: the ONNX graph over the .gguf's own bytes. The options
// are defined in app/commands/export.cpp; the graph is the library's (onnxq/onnx/gguf_export.hpp).
#include <CLI/CLI.hpp>

#include <chrono>

#include "io_settings.hpp"
#include "log.hpp"
#include "onnx_commands.hpp"
#include "onnxq/onnx/gguf_export.hpp"
#include "tensor_selection.hpp"

namespace onnxq::cli {

void run_export_onnx(const OnnxExportOptions& opts) {
  // --dtype is one of bf16, f16 and f32 (CLI::IsMember in app/commands/export.cpp).
  const std::optional<DType> dtype = opts.dtype.empty() ? std::nullopt : parse_dtype_name(opts.dtype);
  const auto start = std::chrono::steady_clock::now();
  const GgufModel model = GgufModel::open(opts.path, ShardPolicy::All, io_options());
  const auto selected = decodable_tensors(
      model, select_tensors(model, opts.tensors, opts.filter, opts.tensors.empty() && opts.filter.empty()),
      opts.skip_unknown);
  const std::uint64_t size = export_onnx(model, selected, opts.output, dtype);
  log::info("export: {} tensors as an ONNX graph over {} shard(s): {} ({} bytes) in {:.3f} s", selected.size(),
            model.shards().size(), opts.output, size,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

}  // namespace onnxq::cli
