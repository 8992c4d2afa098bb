// Writing tensor files for the ONNX-facing commands (run, make-case): serialized TensorProto (.pb);
// reading them is the library's (onnxq/onnx/onnx_io.hpp: read_tensor_file).
#pragma once

#include <string>

#include "onnxq/onnx/onnx_io.hpp"

namespace onnxq::cli {

// Through an OutputSink (temporary file + rename); "-" is stdout.
void write_tensor_proto_file(const std::string& path, const Tensor& tensor, const std::string& name,
                             TensorProtoEncoding encoding = TensorProtoEncoding::RawData);

}  // namespace onnxq::cli
