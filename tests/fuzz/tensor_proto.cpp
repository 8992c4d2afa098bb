// Fuzz target: a serialized TensorProto (.pb). A decoded tensor must match its dims, and
// encoding it again and decoding that must give the same tensor.
#include <algorithm>

#include "fuzz_check.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/onnx/onnx_io.hpp"

namespace {

bool same(const onnxq::Tensor& a, const onnxq::Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (a.is_string()) return a.strings() == b.strings();
  return a.bytes().size() == b.bytes().size() && std::equal(a.bytes().begin(), a.bytes().end(), b.bytes().begin());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const onnxq::NamedTensor t = onnxq::decode_tensor_proto(fuzz_bytes(data, size), "fuzz.pb");
    const std::uint64_t count = t.tensor.element_count();
    if (t.tensor.is_string())
      FUZZ_CHECK(t.tensor.strings().size() == count);
    else
      FUZZ_CHECK(t.tensor.bytes().size() == onnxq::dtype_storage_bytes(t.tensor.dtype(), count));
    for (auto encoding : {onnxq::TensorProtoEncoding::RawData, onnxq::TensorProtoEncoding::TypedFields}) {
      const std::string again = onnxq::encode_tensor_proto(t.tensor, t.name, encoding);
      const onnxq::NamedTensor back =
          onnxq::decode_tensor_proto(std::as_bytes(std::span(again.data(), again.size())), "re-encoded");
      FUZZ_CHECK(back.name == t.name);
      FUZZ_CHECK(same(back.tensor, t.tensor));
    }
  } catch (const onnxq::Error&) {
  }
  return 0;
}
