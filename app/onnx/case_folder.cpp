// Writing a node-test case folder: test_data_set_0/input_K.pb, output_K.pb, then model.onnx.
#include "onnx/case_folder.hpp"

#include <filesystem>

#include "log.hpp"
#include "onnxq/core/error.hpp"
#include "tensor_files.hpp"

namespace onnxq::cli {

void write_case_folder(const std::filesystem::path& dir, const OnnxModel& model, const std::vector<Tensor>& inputs,
                       const std::vector<Tensor>& outputs, bool typed_fields) {
  // Data sets left from an earlier case in this folder would be run against the new model.
  std::error_code list_ec;
  for (std::filesystem::directory_iterator it(dir, list_ec), end; !list_ec && it != end; it.increment(list_ec)) {
    const std::string entry = it->path().filename().string();
    if (entry.rfind("test_data_set_", 0) == 0 && entry != "test_data_set_0")
      log::warn("{} already holds {}; conformance will run it against the new model", dir.string(), entry);
  }
  const auto encoding = typed_fields ? TensorProtoEncoding::TypedFields : TensorProtoEncoding::RawData;
  const std::filesystem::path data_dir = dir / "test_data_set_0";
  std::error_code ec;
  std::filesystem::create_directories(data_dir, ec);
  if (ec) fail(ErrorKind::Io, "cannot create " + data_dir.string() + ": " + ec.message());
  for (std::size_t k = 0; k < inputs.size(); ++k)
    write_tensor_proto_file((data_dir / ("input_" + std::to_string(k) + ".pb")).string(), inputs[k],
                            model.inputs[k].name, encoding);
  for (std::size_t j = 0; j < outputs.size(); ++j)
    write_tensor_proto_file((data_dir / ("output_" + std::to_string(j) + ".pb")).string(), outputs[j],
                            model.outputs[j].name, encoding);
  // model.onnx last: a folder is a case only once its data are complete.
  write_file_atomically((dir / "model.onnx").string(), encode_model(model));
}

}  // namespace onnxq::cli
