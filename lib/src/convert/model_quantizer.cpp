// The model quantizer: the plan, the importance weights checked against it, then one pass of the
// GGUF writer whose produced tensors read, quantize and write a run of rows at a time.
#include "onnxq/convert/model_quantizer.hpp"

#include <algorithm>
#include <optional>

#include "onnxq/convert/importance_matrix.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/decode/quantize_rows.hpp"
#include "onnxq/gguf/rules.hpp"
#include "quantize_input.hpp"

namespace onnxq {
namespace {

// Float values per run of rows: 32 MiB of float32, plus its quantized bytes, is all a tensor
// holds in memory at once, however large it is.
constexpr std::uint64_t kQuantizeRunValues = std::uint64_t{8} << 20;

constexpr std::uint32_t kLlamaFileTypeQ2KS = 21;  // LLAMA_FTYPE_MOSTLY_Q2_K_S
constexpr std::uint32_t kGgmlTypeQ2K = 10;

bool is_embedding_or_output(std::string_view name) {
  return name == "token_embd.weight" || name == "per_layer_token_embd.weight" || name == "output.weight";
}

// Whether quantizing `name` to `format` needs importance weights: where ggml refuses to go
// without them (IQ2_XXS, IQ2_XS, IQ1_S), and where llama-quantize refuses (tensor_requires_imatrix:
// IQ3_XXS, IQ2_S, IQ1_M too, and Q2_K in a Q2_K_S file, except the embeddings and the output).
bool needs_importance(std::string_view name, const BlockFormat& format, std::uint32_t file_type) {
  if (quantize_requires_importance(format)) return true;
  if (is_embedding_or_output(name)) return false;
  const std::string_view t = format.gguf_name;
  if (t == "IQ3_XXS" || t == "IQ2_S" || t == "IQ1_M") return true;
  return format.ggml_type == kGgmlTypeQ2K && file_type == kLlamaFileTypeQ2KS;
}

// Everything decided before a byte is written.
struct PreparedQuantization {
  std::unique_ptr<QuantizeInput> input;
  std::optional<ImportanceMatrix> importance;
  QuantizePlan plan;
  std::vector<const std::vector<float>*> weights;  // per tensor: the importance entry used, or null
  GgufMetadata metadata;
  ModelQuantizeReport report;
};

// The plan sized every tensor (quantize_plan.cpp refuses one past the rule book's limits).
std::uint64_t element_count(const std::vector<std::uint64_t>& ne) { return gguf_element_count(ne).value(); }

PreparedQuantization prepare(const std::string& path, const ModelQuantizeOptions& options, const QuantizePlan* given) {
  PreparedQuantization p;
  p.input = QuantizeInput::open(path, options.architecture, options.io);
  if (!options.imatrix.empty()) p.importance = read_importance_matrix(options.imatrix);
  if (given != nullptr) {
    p.plan = *given;
  } else {
    QuantizePlanOptions plan_options = options.plan;
    plan_options.have_imatrix = p.importance.has_value();
    p.plan = plan_quantization(p.input->metadata(), p.input->tensors(), plan_options);
  }
  const auto& tensors = p.input->tensors();
  if (p.plan.tensors.size() != tensors.size())
    invalid_argument("the quantization plan has " + std::to_string(p.plan.tensors.size()) + " tensors; the input " +
                     std::to_string(tensors.size()));

  ModelQuantizeReport& r = p.report;
  r.input_kind = p.input->kind();
  r.file_type = p.plan.file_type;
  r.preset = p.plan.preset;
  r.architecture_known = p.plan.architecture_known;
  r.importance_entries = p.importance ? p.importance->entries.size() : 0;
  p.weights.assign(tensors.size(), nullptr);
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const PlanInputTensor& t = tensors[i];
    const PlannedTensor& planned = p.plan.tensors[i];
    QuantizedTensorRow row{t.name, t.ne, element_count(t.ne), planned, false};
    if (!planned.copy) {
      const BlockFormat* format = find_format_by_ggml_type(planned.to_type);
      if (format == nullptr || (!format->is_block_format() && !dtype_info(format->plain_dtype).is_float))
        invalid_argument("tensor '" + t.name + "': cannot convert to type " + std::to_string(planned.to_type));
      if (p.importance && format->is_block_format() && !t.ne.empty() && row.elements > 0) {
        const std::vector<float>* entry = p.importance->find(t.name);
        const std::uint64_t matrices = t.ne.size() > 2 ? row.elements / (t.ne[0] * t.ne[1]) : 1;
        if (entry != nullptr && entry->size() != t.ne[0] * matrices) {
          // llama-quantize ignores a token embedding's mismatch (it is never a matmul input) and refuses the rest.
          if (t.name != "token_embd.weight" && t.name != "per_layer_token_embd.weight")
            invalid_input(p.importance->path + ": entry '" + t.name + "' has " + std::to_string(entry->size()) +
                          " weights; the tensor needs " + std::to_string(t.ne[0] * matrices) + " (" +
                          std::to_string(t.ne[0]) + " columns x " + std::to_string(matrices) + " matrices)");
          entry = nullptr;
        }
        p.weights[i] = entry;
        row.importance = entry != nullptr && quantize_uses_importance(*format);
      }
      if (format->is_block_format() && p.weights[i] == nullptr && needs_importance(t.name, *format, r.file_type))
        invalid_input(
            "tensor '" + t.name + "': " + std::string(format->gguf_name) + " needs an importance matrix, and " +
            (p.importance ? p.importance->path + " has no entry for it" : std::string("none was given (--imatrix)")));
    }
    r.elements += row.elements;
    r.bytes_before += planned.bytes_before;
    r.bytes_after += planned.bytes_after;
    r.tensors.push_back(std::move(row));
  }

  p.metadata = p.input->metadata();
  p.metadata.set("general.quantization_version", GgufOwnedValue::u32(2));
  p.metadata.set("general.file_type", GgufOwnedValue::u32(p.plan.file_type));
  if (const GgufOwnedValue* arch = p.metadata.find("general.architecture");
      arch != nullptr && arch->type() == GgufType::String)
    r.architecture = arch->text();
  return p;
}

// Rows [first, first + count) of a tensor quantized (or converted, for a plain target) into `out`.
struct RowQuantizer {
  const std::string* name;
  const BlockSource* source;
  const BlockFormat* target;
  std::uint64_t n_per_row;
  int threads;
  std::vector<float> values;
  std::vector<std::byte> out;

  std::span<const std::byte> run(std::uint64_t first, std::uint64_t count, std::span<const float> importance) {
    const BlockFormat& from = source->format();
    const std::uint64_t blocks_per_row = n_per_row / from.block_elements;
    if (!target->is_block_format()) {  // a plain float type: decoded straight into it
      out.resize(count * n_per_row * target->block_bytes);
      decode_blocks(*source, first * blocks_per_row, count * blocks_per_row, target->plain_dtype, out.data(), threads);
      return out;
    }
    values.resize(count * n_per_row);
    decode_blocks(*source, first * blocks_per_row, count * blocks_per_row, DType::Float, values.data(), threads);
    out.resize(count * quantized_row_bytes(*target, n_per_row));
    // Errors number the rows from the tensor's first, as the user counts them.
    QuantizeRequest request{target, DType::Float, values.data(), count, n_per_row, importance, out.data(), first};
    try {
      quantize_rows(request, threads);
    } catch (const Error& e) {
      throw Error(e.kind(), "tensor '" + *name + "': " + e.what());
    }
    return out;
  }
};

std::vector<GgufWriterTensor> writer_tensors(const PreparedQuantization& p, const ModelQuantizeOptions& options,
                                             const QuantizeProgress& progress) {
  std::vector<GgufWriterTensor> out;
  const auto& tensors = p.input->tensors();
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i)
    if (!p.plan.tensors[i].copy) total += p.input->byte_size(i);
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const PlannedTensor& planned = p.plan.tensors[i];
    if (planned.copy) {
      out.push_back(p.input->copied(i));
      continue;
    }
    const PlanInputTensor& t = tensors[i];
    const BlockFormat& target = *find_format_by_ggml_type(planned.to_type);
    const QuantizeInput* input = p.input.get();
    const std::vector<float>* weights = p.weights[i];
    const std::uint64_t input_bytes = input->byte_size(i);
    const int threads = options.threads;
    out.push_back(gguf_produced_tensor(t.name, t.ne, target, [=, &t](GgufTensorSink& sink) {
      const std::unique_ptr<BlockSource> source = input->blocks(i);
      const std::uint64_t n_per_row = t.ne.empty() ? 1 : t.ne[0];
      const std::uint64_t rows_per_matrix = t.ne.size() > 1 ? t.ne[1] : 1;
      const std::uint64_t elements = element_count(t.ne);
      if (elements == 0) return;
      const std::uint64_t matrices = elements / (n_per_row * rows_per_matrix);
      const std::uint64_t run_rows = std::max<std::uint64_t>(1, kQuantizeRunValues / n_per_row);
      RowQuantizer quantizer{&t.name, source.get(), &target, n_per_row, threads, {}, {}};
      const std::uint64_t rows = matrices * rows_per_matrix;
      std::uint64_t reported = 0;
      for (std::uint64_t m = 0; m < matrices; ++m) {
        // An expert's rows take that expert's weights.
        std::span<const float> importance;
        if (weights != nullptr) importance = std::span<const float>(*weights).subspan(m * n_per_row, n_per_row);
        for (std::uint64_t r = 0; r < rows_per_matrix; r += run_rows) {
          const std::uint64_t first = m * rows_per_matrix + r;
          const std::uint64_t count = std::min(run_rows, rows_per_matrix - r);
          sink.write(quantizer.run(first, count, importance));
          if (progress) {
            const std::uint64_t now = static_cast<std::uint64_t>(static_cast<double>(input_bytes) *
                                                                 static_cast<double>(first + count) / rows);
            progress(now - reported, total);
            reported = now;
          }
        }
      }
    }));
  }
  return out;
}

}  // namespace

ModelQuantizeReport plan_model_quantization(const std::string& input, const ModelQuantizeOptions& options) {
  PreparedQuantization p = prepare(input, options, nullptr);
  const std::vector<GgufWriterTensor> tensors = writer_tensors(p, options, {});
  p.report.file_size = gguf_plan(p.metadata, tensors, {}).file_size;
  return std::move(p.report);
}

ModelQuantizeReport quantize_model(const std::string& input, const std::string& output,
                                   const ModelQuantizeOptions& options, const QuantizeProgress& progress,
                                   const GgufOutputCreator& create) {
  return quantize_model_with_plan(input, output, nullptr, options, progress, create);
}

ModelQuantizeReport quantize_model_with_plan(const std::string& input, const std::string& output,
                                             const QuantizePlan* plan, const ModelQuantizeOptions& options,
                                             const QuantizeProgress& progress, const GgufOutputCreator& create) {
  PreparedQuantization p = prepare(input, options, plan);
  const std::vector<GgufWriterTensor> tensors = writer_tensors(p, options, progress);
  const GgufLayoutPlan layout = gguf_plan(p.metadata, tensors, {});
  AtomicFile out = create ? create(output, {}) : AtomicFile::create(output);
  out.reserve(0, layout.file_size);
  gguf_write(out, layout, tensors, {});
  out.commit();
  p.report.file_size = layout.file_size;
  return std::move(p.report);
}

}  // namespace onnxq
