#include "tensor_files.hpp"

#include "onnxq/io/same_file.hpp"
#include "onnxq/npy/reader.hpp"
#include "onnxq/npy/writer.hpp"
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

void write_npy_file(const std::string& path, const Tensor& tensor) {
  OutputSink sink = OutputSink::open(path);
  write_npy_tensor(tensor, [&](const void* data, std::size_t size) { sink.write(data, size); });
  sink.commit();
}

std::string safe_file_stem(const std::string& name, const std::string& fallback) {
  std::string out;
  for (unsigned char c : name) {
    const bool ok =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    out += ok ? static_cast<char>(c) : '_';
  }
  if (out.empty()) return fallback;
  if (out[0] == '.') out[0] = '_';
  return out;
}

}  // namespace onnxq::cli
