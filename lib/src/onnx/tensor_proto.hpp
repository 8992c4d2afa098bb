// TensorProto <-> Tensor on the protobuf message itself, shared by the .pb codec and the
// model codec (initializers, tensor attributes). Internal: keeps onnx_pb.h out of public headers.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "onnxq/onnx/onnx_io.hpp"

namespace onnxq::detail {

// `where` names the tensor in error messages, e.g. "input_0.pb" or "initializer 'w'".
NamedTensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& where);
void tensor_to_proto(const Tensor& tensor, const std::string& name, TensorProtoEncoding encoding,
                     onnx::TensorProto* out);

// ParseFromArray with a size check; false on bad bytes (never throws, never crashes).
template <class Message>
bool parse_message(std::span<const std::byte> bytes, Message* out) {
  if (bytes.size() > static_cast<std::size_t>(INT32_MAX)) return false;
  return out->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
}

}  // namespace onnxq::detail
