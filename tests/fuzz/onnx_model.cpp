// Fuzz target: a single-node ModelProto (.onnx): decoding, the binding of the node's inputs and
// outputs to graph inputs/initializers/outputs, and the operator-registry lookup a run starts with.
#include "fuzz_check.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/onnx/node_runner.hpp"
#include "onnxq/onnx/onnx_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const onnxq::SingleNodeModel m = onnxq::decode_single_node_model(fuzz_bytes(data, size), "fuzz.onnx");
    for (const onnxq::NamedTensor& init : m.initializers) {
      const std::uint64_t count = init.tensor.element_count();
      if (init.tensor.is_string())
        FUZZ_CHECK(init.tensor.strings().size() == count);
      else
        FUZZ_CHECK(init.tensor.bytes().size() == onnxq::dtype_storage_bytes(init.tensor.dtype(), count));
    }
    for (const onnxq::NodeAttribute& a : m.node.attributes) (void)onnxq::attribute_type_name(a.type);
    (void)m.node_opset();
    const auto reason = onnxq::unsupported_reason(m.node, m.node_opset());
    if (!reason) FUZZ_CHECK(onnxq::find_op_schema(m.node.op_type, m.node_opset()) != nullptr);
    // Encoding what was decoded must give a model that decodes again.
    const std::string again = onnxq::encode_model(m);
    const onnxq::SingleNodeModel back =
        onnxq::decode_single_node_model(std::as_bytes(std::span(again.data(), again.size())), "re-encoded");
    FUZZ_CHECK(back.node.op_type == m.node.op_type);
    FUZZ_CHECK(back.node.inputs == m.node.inputs && back.node.outputs == m.node.outputs);
    FUZZ_CHECK(back.inputs.size() == m.inputs.size() && back.initializers.size() == m.initializers.size());
  } catch (const onnxq::Error&) {
  }
  return 0;
}
