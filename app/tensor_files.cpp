#include "tensor_files.hpp"

#include "onnxq/io/same_file.hpp"
#include "onnxq/npy/reader.hpp"
#include "output.hpp"

namespace onnxq::cli {

bool is_tensor_proto_path(std::string_view path) { return path.size() >= 3 && path.substr(path.size() - 3) == ".pb"; }

Tensor read_tensor_file(const std::string& path) {
  note_input_file(path);  // a .pb is read and closed: an output onto it must still be refused
  if (is_tensor_proto_path(path)) return read_tensor_proto_file(path).tensor;
  return read_npy_file(path);
}

void write_file_atomically(const std::string& path, std::string_view bytes) {
  OutputSink sink = OutputSink::open(path);
  sink.write(bytes.data(), bytes.size());
  sink.commit();
}

void write_tensor_proto_file(const std::string& path, const Tensor& tensor, const std::string& name,
                             TensorProtoEncoding encoding) {
  write_file_atomically(path, encode_tensor_proto(tensor, name, encoding));
}

}  // namespace onnxq::cli
