// Quantizing a whole model: a GGUF model (one file, or every shard of a split one) or a safetensors
// checkpoint (a .safetensors file or a model.safetensors.index.json) in, one GGUF file out. The
// type plan (quantize_plan.hpp) says what each tensor becomes; this driver reads each tensor to
// quantize a run of rows at a time (F32/F16/BF16 widened exactly, already-quantized data decoded
// exactly), quantizes it with quantize_rows (byte for byte ggml_quantize_chunk; a 3-D expert
// tensor with each expert's importance weights), and hands the bytes to the GGUF writer as they
// come: one pass, tensor by tensor, memory bounded by the runs, not by the model. Tensors the plan
// copies are copied as they are. The output is written unnamed and named only when complete.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "onnxq/convert/quantize_plan.hpp"
#include "onnxq/gguf/writer.hpp"
#include "onnxq/io/io_options.hpp"

namespace onnxq {

// general.architecture of a model made from safetensors when no architecture is given.
inline constexpr std::string_view kSafetensorsDefaultArchitecture = "unknown";

struct ModelQuantizeOptions {
  QuantizePlanOptions plan;  // plan.have_imatrix is set from `imatrix`
  std::string imatrix;       // an importance matrix file (importance_matrix.hpp), or empty
  std::string architecture;  // safetensors input: general.architecture (default kSafetensorsDefaultArchitecture)
  int threads = 0;           // 0: all cores
  IoOptions io;              // how the input is read: a local file, or an http(s):// or hf:// URL
};

// One tensor of the plan, as a front end shows it.
struct QuantizedTensorRow {
  std::string name;
  std::vector<std::uint64_t> ne;  // GGUF order
  std::uint64_t elements = 0;
  PlannedTensor plan;
  bool importance = false;  // quantized with importance weights from the matrix
};

struct ModelQuantizeReport {
  std::string input_kind;    // "gguf" or "safetensors"
  std::string architecture;  // general.architecture of the output
  std::uint32_t file_type = 0;
  bool preset = false;
  bool architecture_known = false;
  std::vector<QuantizedTensorRow> tensors;  // in the input's (and output's) order
  std::uint64_t elements = 0;
  std::uint64_t bytes_before = 0;  // tensor data of the input
  std::uint64_t bytes_after = 0;   // tensor data of the output
  std::uint64_t file_size = 0;     // the output file's size (a dry run: what it would be)
  std::size_t importance_entries = 0;

  double bits_per_weight_before() const { return elements ? 8.0 * bytes_before / elements : 0.0; }
  double bits_per_weight_after() const { return elements ? 8.0 * bytes_after / elements : 0.0; }
};

// The report as `onnxq quantize --json` prints it: one JSON object (2-space indent, no final newline)
// with the `input`, the `output` (null for a dry run), the `type` asked for, the plan's rows and totals.
std::string model_quantize_report_json(const ModelQuantizeReport& report, const std::string& input,
                                       const std::string& output, bool dry_run, const std::string& type);

// Progress, called from the writing thread as a run of rows is written: `advance` more input bytes
// quantized, of `total` (the input bytes of every tensor the plan quantizes; copies are not counted).
using QuantizeProgress = std::function<void(std::uint64_t advance, std::uint64_t total)>;

// True when `path` names safetensors input (.safetensors, or an index ending in .json).
bool is_safetensors_input(const std::string& path);

// The plan alone (--dry-run): reads the input's header and the importance matrix, writes nothing.
// Throws as quantize_model does before it writes.
ModelQuantizeReport plan_model_quantization(const std::string& input, const ModelQuantizeOptions& options);

// Quantizes `input` to `output`. Everything that can be refused is refused before a byte is
// written: Error(InvalidArgument) for an unknown type or an override of one, Error(InvalidInput)
// naming the tensor for an already-quantized tensor without allow_requantize, for a tensor whose
// type needs an importance matrix and finds no entry (or one of the wrong length), for a shape the
// type cannot hold; Error(Io) for a file that cannot be read. A value that is not finite, a read
// failure or a full disk stop the write (Error(InvalidInput) / Error(Io)) and leave no output; an
// existing output stays as it was until the new one is complete. `create` makes the output file
// (default AtomicFile::create).
ModelQuantizeReport quantize_model(const std::string& input, const std::string& output,
                                   const ModelQuantizeOptions& options, const QuantizeProgress& progress = {},
                                   const GgufOutputCreator& create = {});
// The same under a plan made elsewhere (one PlannedTensor per input tensor, in its order; null:
// plan_quantization's), e.g. by a test; options.plan is then not read.
ModelQuantizeReport quantize_model_with_plan(const std::string& input, const std::string& output,
                                             const QuantizePlan* plan, const ModelQuantizeOptions& options,
                                             const QuantizeProgress& progress = {},
                                             const GgufOutputCreator& create = {});

}  // namespace onnxq
