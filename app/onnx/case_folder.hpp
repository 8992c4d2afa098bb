// Case folders of ONNX backend node tests, as make-case writes them.
#pragma once

#include <filesystem>
#include <vector>

#include "onnx_commands.hpp"
#include "onnxq/onnx/onnx_io.hpp"

namespace onnxq::cli {

// The library's write_case_folder (the data set, then model.onnx last) with the CLI's output files,
// warning about data sets left in `dir` by an earlier case. `inputs` and `outputs` line up with
// model.inputs and model.outputs.
void write_case_folder(const std::filesystem::path& dir, const OnnxModel& model, const std::vector<Tensor>& inputs,
                       const std::vector<Tensor>& outputs, bool typed_fields);

// make-case --from-gguf (app/onnx/make_case_gguf.cpp).
void run_make_case_from_gguf(const MakeCaseOptions& opts);

}  // namespace onnxq::cli
