// onnxq estimate: the memory llama.cpp needs to run a model at a context length (weights in RAM
// and offloaded, K/V caches, recurrent states, an approximate compute buffer), from the header
// alone: one MemoryEstimate from the library, printed as text, markdown or JSON.
#include <iostream>
#include <memory>
#include <optional>

#include "command.hpp"
#include "common_options.hpp"
#include "io_settings.hpp"
#include "log.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/model/memory_estimate.hpp"
#include "report.hpp"
#include "text_table.hpp"

namespace onnxq::cli {
namespace {

struct EstimateCliOptions {
  std::string path;
  std::uint64_t context = 4096;
  std::string kv_type = "f16";
  std::string k_type, v_type;  // empty: kv_type
  std::string gpu_layers = "all";
  std::uint64_t batch = 2048;
  std::uint64_t ubatch = 512;
  bool per_layer = false;
  bool json = false;
  bool markdown = false;
};

std::string offload_text(const MemoryEstimate& e) {
  if (e.offloaded_layers == 0 && !e.output_offloaded) return "none: everything in RAM";
  std::string text = std::to_string(e.offloaded_layers) + " of " + std::to_string(e.layer_count) + " layers";
  if (e.offloaded_layers > 0 && e.offloaded_layers < e.layer_count)
    text +=
        " (" + std::to_string(e.layer_count - e.offloaded_layers) + " to " + std::to_string(e.layer_count - 1) + ")";
  return text + (e.output_offloaded ? " and the output layer" : "; the output layer stays in RAM");
}

void print_report(const MemoryEstimate& e, const EstimateCliOptions& opts, OutputFormat format) {
  using A = TextTable::Align;
  const bool md = format == OutputFormat::Markdown;
  FieldList f;
  f.add("file", file_text(opts.path));
  if (!e.model.architecture.empty()) f.add("architecture", file_text(e.model.architecture));
  std::string context = std::to_string(e.context) + " tokens in " + std::to_string(e.cells) + " KV cells";
  if (e.swa_cells) context += " (" + std::to_string(e.swa_cells) + " on sliding-window layers)";
  f.add("context", plain(context));
  f.add("cache types", plain("K " + std::string(e.k_type->ggml_name) + ", V " + std::string(e.v_type->ggml_name)));
  f.add("offloaded", plain(offload_text(e)));
  f.add("batch", plain(std::to_string(e.batch) + " (micro-batch " + std::to_string(e.ubatch) + ")"));
  print_heading(std::cout, format, 1, opts.path);
  print_fields(std::cout, format, f);
  std::cout << (md ? "" : "\n");

  Table t{{"", "RAM", "VRAM", "total"}, {A::Left, A::Right, A::Right, A::Right}, {}};
  auto row = [&](const std::string& label, const MemorySplit& m) {
    t.add({plain(label), plain(byte_units(m.ram)), plain(byte_units(m.vram)), plain(byte_units(m.total()))});
  };
  row("embeddings", e.input_weights);
  row("layers", e.layer_weights);
  row("output", e.output_weights);
  row("K cache", e.k_cache);
  row("V cache", e.v_cache);
  if (e.recurrent_state.total()) row("recurrent state", e.recurrent_state);
  row("compute (approx.)", e.compute);
  row("total", e.total());
  print_heading(std::cout, format, 2, "Memory");
  print_table(std::cout, format, t);

  if (opts.per_layer && !e.layers.empty()) {
    Table l{{"layer", "device", "attention", "KV cells", "weights", "K cache", "V cache", "state"},
            {A::Right, A::Left, A::Left, A::Right, A::Right, A::Right, A::Right, A::Right},
            {}};
    for (std::size_t i = 0; i < e.layers.size(); ++i) {
      const LayerMemory& m = e.layers[i];
      l.add({plain(std::to_string(i)), plain(m.offloaded ? "GPU" : "CPU"),
             plain(std::string(layer_attention_name(e.model.layers[i]))), plain(std::to_string(m.cells)),
             plain(byte_units(m.weights)), plain(byte_units(m.k_cache)), plain(byte_units(m.v_cache)),
             plain(byte_units(m.recurrent_state))});
    }
    std::cout << (md ? "" : "\n");
    print_heading(std::cout, format, 2, "Layers");
    print_table(std::cout, format, l);
  }
  FieldList notes;
  for (const std::string& n : e.model.notes) notes.add("note", file_text(n));
  for (const std::string& n : e.notes) notes.add("note", file_text(n));
  if (!notes.empty()) {
    std::cout << (md ? "" : "\n");
    print_heading(std::cout, format, 2, "Notes");
    print_fields(std::cout, format, notes);
  }
}

void run_estimate(const EstimateCliOptions& opts) {
  EstimateOptions o;
  o.context = opts.context;
  o.k_type = find_kv_cache_type(opts.k_type.empty() ? opts.kv_type : opts.k_type);
  o.v_type = find_kv_cache_type(opts.v_type.empty() ? opts.kv_type : opts.v_type);
  o.gpu_layers = *parse_gpu_layers(opts.gpu_layers);
  o.batch = opts.batch;
  o.ubatch = opts.ubatch;
  // Header only: a remote or split model costs a few range requests.
  const GgufModel model = GgufModel::open(opts.path, ShardPolicy::All, io_options());
  MemoryEstimate e;
  try {
    e = estimate_memory(model, o);
  } catch (const Error& err) {
    throw Error(err.kind(), opts.path + ": " + err.what());
  }
  for (const TensorInfo& t : model.tensors())
    if (!t.format) {
      log::warn("{}: tensors of types onnxq does not know (such as '{}', ggml type {}) are counted at their byte size",
                opts.path, escape_for_terminal(t.name), t.ggml_type);
      break;
    }
  const OutputFormat format = output_format(opts.json, opts.markdown);
  if (format == OutputFormat::Json)
    std::cout << memory_estimate_json(e, opts.path) << '\n';
  else
    print_report(e, opts, format);
}

void add_estimate_command(CLI::App& app, const GlobalOptions&) {
  auto opts = std::make_shared<EstimateCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "estimate",
      "Estimate the memory llama.cpp needs to run a model: weights in RAM and on the GPU, K/V caches, "
      "compute buffer");
  cmd->footer(
      "Examples:\n"
      "  onnxq estimate model.gguf --ctx 8192\n"
      "  onnxq estimate hf://OWNER/REPO/model-Q4_K_M.gguf --ctx 32768 --kv-type q8_0 --gpu-layers 20\n"
      "Reads only the header, so a remote (http://, https://, hf://) or split model needs no download. The K and "
      "V caches are computed as llama.cpp allocates them: the context rounded up to a multiple of 256 cells, per "
      "layer cells x key_length (or embedding_length / head_count) x head_count_kv values of the cache type; a "
      "sliding-window layer keeps min(cells, window + micro-batch) cells; a recurrent layer keeps an f32 state "
      "instead. Layers are offloaded from the last, as llama.cpp's -ngl; the token embeddings stay in RAM. The "
      "compute buffer is an approximation (see the man page for its formula).");
  add_gguf_file_argument(*cmd, opts->path);
  const CLI::Validator positive = CLI::PositiveNumber;
  cmd->add_option("-c,--ctx", opts->context, "Context length in tokens, as llama.cpp's -c")
      ->capture_default_str()
      ->check(positive);
  std::vector<std::string> types(kv_cache_type_names().begin(), kv_cache_type_names().end());
  cmd->add_option("--kv-type", opts->kv_type, "Type of the K and V caches (llama.cpp's --cache-type-k/-v)")
      ->capture_default_str()
      ->check(CLI::IsMember(types));
  cmd->add_option("--kv-type-k", opts->k_type, "Type of the K cache alone (default: --kv-type)")
      ->check(CLI::IsMember(types));
  cmd->add_option("--kv-type-v", opts->v_type, "Type of the V cache alone (default: --kv-type)")
      ->check(CLI::IsMember(types));
  const CLI::Validator layers(
      [](std::string& text) -> std::string {
        return parse_gpu_layers(text) ? std::string() : "must be a layer count (0 or more) or 'all', got " + text;
      },
      "N|all");
  cmd->add_option("--gpu-layers", opts->gpu_layers,
                  "Layers offloaded to the GPU, counted from the last, as llama.cpp's -ngl ('all' or -1: every layer "
                  "and the output layer; 0: none)")
      ->capture_default_str()
      ->check(layers);
  cmd->add_option("--batch", opts->batch, "Logical batch size, as llama.cpp's -b")
      ->capture_default_str()
      ->check(positive);
  cmd->add_option("--ubatch", opts->ubatch, "Physical batch size (micro-batch), as llama.cpp's -ub")
      ->capture_default_str()
      ->check(positive);
  cmd->add_flag("--per-layer", opts->per_layer, "Also show each layer's device, KV cells, weights and caches");
  add_json_flag(*cmd, opts->json, "exact byte counts, per-layer figures always included");
  add_markdown_flag(*cmd, opts->markdown);
  cmd->callback([opts] { run_estimate(*opts); });
}

const CommandRegistration estimate_registration{"estimate", 15, &add_estimate_command};

}  // namespace
}  // namespace onnxq::cli
