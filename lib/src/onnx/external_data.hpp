// TensorProto external data <-> ExternalTensor, with the location rules of external_data.cpp.
// Internal: keeps onnx_pb.h out of public headers.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "onnxq/onnx/onnx_io.hpp"

namespace onnxq::detail {

// `label` names the initializer in errors. Throws InvalidInput for any location, range or length
// the rules refuse, so that nothing outside the model's folder or the file is ever read.
ExternalTensor external_tensor_from_proto(const onnx::TensorProto& proto, const std::string& model_dir,
                                          const std::string& label);
void external_tensor_to_proto(const ExternalTensor& tensor, onnx::TensorProto* out);

}  // namespace onnxq::detail
