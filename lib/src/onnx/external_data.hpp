// TensorProto external data <-> ExternalTensor, with the location rules of external_data.cpp.
// Internal: keeps onnx_pb.h out of public headers.
#pragma once

#include <onnx/onnx_pb.h>

#include <memory>
#include <string>

#include "onnxq/formats/block_source.hpp"
#include "onnxq/onnx/onnx_io.hpp"

namespace onnxq::detail {

// `label` names the initializer in errors. Throws InvalidInput for any location, range or length
// the rules refuse, so that nothing outside the model's folder or the file is ever read.
ExternalTensor external_tensor_from_proto(const onnx::TensorProto& proto, const std::string& model_dir,
                                          const std::string& label);
// The tensor's bytes as blocks of `format`, read with pread a range at a time from a file opened
// and checked now (regular, the range inside it); a read that comes up short is InvalidInput.
std::shared_ptr<const BlockSource> external_blocks(const ExternalTensor& tensor, const BlockFormat& format,
                                                   const std::string& source);
void external_tensor_to_proto(const ExternalTensor& tensor, onnx::TensorProto* out);

}  // namespace onnxq::detail
