// Tensor files for the ONNX-facing commands (run, make-case): .npy or serialized TensorProto (.pb).
#pragma once

#include <string>
#include <string_view>

#include "onnxq/onnx/onnx_io.hpp"

namespace onnxq::cli {

// A file name ending in ".pb" is a TensorProto; anything else is read as .npy.
bool is_tensor_proto_path(std::string_view path);
Tensor read_tensor_file(const std::string& path);

// Writes `bytes` to `path` through an OutputSink (temporary file + rename).
void write_file_atomically(const std::string& path, std::string_view bytes);

void write_tensor_proto_file(const std::string& path, const Tensor& tensor, const std::string& name,
                             TensorProtoEncoding encoding = TensorProtoEncoding::RawData);

}  // namespace onnxq::cli
