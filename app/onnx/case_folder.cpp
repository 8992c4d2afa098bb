// Writing a node-test case folder through the library (test_data_set_0, then model.onnx), the
// files made as every output of the CLI is.
#include "onnx/case_folder.hpp"

#include "log.hpp"
#include "output.hpp"

namespace onnxq::cli {

void write_case_folder(const std::filesystem::path& dir, const OnnxModel& model, const std::vector<Tensor>& inputs,
                       const std::vector<Tensor>& outputs, bool typed_fields) {
  const auto encoding = typed_fields ? TensorProtoEncoding::TypedFields : TensorProtoEncoding::RawData;
  const auto create = [](const std::string& path) { return create_output_file(path, {}); };
  for (const std::string& entry : onnxq::write_case_folder(dir.string(), model, inputs, outputs, encoding, create))
    log::warn("{} already holds {}; conformance will run it against the new model", dir.string(), entry);
}

}  // namespace onnxq::cli
