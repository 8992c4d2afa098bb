#include "tensor_files.hpp"

#include "output.hpp"

namespace onnxq::cli {

void write_tensor_proto_file(const std::string& path, const Tensor& tensor, const std::string& name,
                             TensorProtoEncoding encoding) {
  const std::string bytes = encode_tensor_proto(tensor, name, encoding);
  OutputSink sink = OutputSink::open(path);
  sink.write(bytes.data(), bytes.size());
  sink.commit();
}

}  // namespace onnxq::cli
