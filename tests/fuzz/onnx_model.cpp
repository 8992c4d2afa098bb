// Fuzz target: a ModelProto (.onnx): decoding, the graph checks (bindings, topological order),
// and the operator-registry lookup a run starts with. External data is refused (no folder given).
#include "fuzz_check.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/onnx/node_runner.hpp"
#include "onnxq/onnx/onnx_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const onnxq::OnnxModel m = onnxq::decode_onnx_model(fuzz_bytes(data, size), "fuzz.onnx");
    for (const onnxq::NamedTensor& init : m.initializers) {
      const std::uint64_t count = init.tensor.element_count();
      if (init.tensor.is_string())
        FUZZ_CHECK(init.tensor.strings().size() == count);
      else
        FUZZ_CHECK(init.tensor.bytes().size() == onnxq::dtype_storage_bytes(init.tensor.dtype(), count));
    }
    for (const onnxq::OnnxNode& node : m.nodes) {
      for (const onnxq::NodeAttribute& a : node.attributes) (void)onnxq::attribute_type_name(a.type);
      const auto reason = onnxq::unsupported_reason(node, m.opset_for(node));
      if (!reason) FUZZ_CHECK(onnxq::find_op_schema(node.op_type, m.opset_for(node)) != nullptr);
    }
    // Encoding what was decoded must give a model that decodes again.
    const std::string again = onnxq::encode_model(m);
    const onnxq::OnnxModel back =
        onnxq::decode_onnx_model(std::as_bytes(std::span(again.data(), again.size())), "re-encoded");
    FUZZ_CHECK(back.nodes.size() == m.nodes.size());
    for (std::size_t k = 0; k < m.nodes.size(); ++k) {
      FUZZ_CHECK(back.nodes[k].op_type == m.nodes[k].op_type);
      FUZZ_CHECK(back.nodes[k].inputs == m.nodes[k].inputs && back.nodes[k].outputs == m.nodes[k].outputs);
    }
    FUZZ_CHECK(back.inputs.size() == m.inputs.size() && back.initializers.size() == m.initializers.size());
  } catch (const onnxq::Error&) {
  }
  return 0;
}
