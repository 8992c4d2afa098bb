// onnxq quantize IN -o OUT.gguf --type T: a whole model (GGUF or safetensors) quantized to GGUF by
// the library's model quantizer (onnxq/convert/model_quantizer.hpp); this file parses the options
// that only the model mode has, and renders the plan and the result.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace onnxq::cli {

struct ModelQuantizeCliOptions {
  std::string input;                      // the positional IN
  std::string output;                     // -o (shared with --raw)
  std::string type;                       // --type
  std::vector<std::string> tensor_types;  // --tensor-type GLOB=TYPE, in order
  std::vector<std::string> keep;          // --keep GLOB
  std::string imatrix;                    // --imatrix (shared with --raw)
  std::string architecture;               // --arch
  bool allow_requantize = false;
  bool dry_run = false;
  bool json = false;
  int threads = 0;  // --threads (shared)
};

// True when `input` is a model that the model mode reads (.gguf, .safetensors, .json).
bool is_model_input(const std::string& input);

// Adds the model mode's own options (--type, --tensor-type, --keep, --allow-requantize, --arch,
// --dry-run, --json) to `cmd`.
void add_model_quantize_options(CLI::App& cmd, ModelQuantizeCliOptions& options);

void run_model_quantize(const ModelQuantizeCliOptions& options);

}  // namespace onnxq::cli
