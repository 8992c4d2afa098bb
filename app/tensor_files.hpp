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
// .npy through an OutputSink; "-" is stdout (never a terminal).
void write_npy_file(const std::string& path, const Tensor& tensor);

// A file name made from a tensor name from an untrusted model: only [A-Za-z0-9._-], no leading
// dot, never empty (`fallback` then), so it cannot leave the output folder.
std::string safe_file_stem(const std::string& name, const std::string& fallback);

}  // namespace onnxq::cli
