// DequantizePacked node tests cut from a GGUF tensor (onnxq/onnx/gguf_case.hpp).
#include "onnxq/onnx/gguf_case.hpp"

#include <algorithm>

#include "onnxq/core/error.hpp"
#include "onnxq/ops/dequantize_packed.hpp"

namespace onnxq {

GgufNodeCase gguf_node_case(const GgufModel& model, const TensorInfo& tensor, std::optional<std::uint64_t> rows,
                            DType dtype) {
  const std::string label = model.primary().path + ": tensor '" + std::string(tensor.name) + "'";
  if (!tensor.format || !tensor.format->is_block_format())
    invalid_argument(label + " is of type " + tensor.type_name() + ", not a DequantizePacked block format");
  if (model.shards().at(tensor.shard).big_endian)
    invalid_input(label + ": the file is big-endian; convert it first with `onnxq convert-endian`");
  const BlockFormat& format = *tensor.format;
  Shape shape = tensor.onnx_shape();
  std::uint64_t length = tensor.byte_size;
  if (rows) {
    const std::uint64_t row_elements = tensor.ne.at(0);
    const std::uint64_t all_rows = row_elements ? tensor.element_count / row_elements : 0;
    if (*rows == 0) invalid_argument("--rows must be at least 1");
    const std::uint64_t n = std::min(*rows, all_rows);
    shape = {static_cast<std::int64_t>(n), static_cast<std::int64_t>(row_elements)};
    length = n * (row_elements / format.block_elements) * format.block_bytes;  // rows are whole blocks
  }
  std::vector<std::byte> storage;
  const auto bytes = model.tensor_bytes(tensor, 0, length, storage);

  GgufNodeCase c;
  c.input = Tensor::from_bytes(DType::UInt8, {static_cast<std::int64_t>(bytes.size())}, bytes);
  DequantizePackedAttributes attrs;
  attrs.format = format.format_id;
  attrs.shape = shape;
  attrs.output_dtype = dtype;
  c.output = dequantize_packed(c.input, attrs);

  OnnxModel& m = c.model;
  m.ir_version = ir_version_for_opset(29);
  m.opset_imports.push_back({"", 29});
  m.graph_name = std::string(tensor.name);
  OnnxNode node;
  node.op_type = "DequantizePacked";
  node.inputs = {"x"};
  node.outputs = {"y"};
  NodeAttribute f;
  f.name = "format";
  f.type = AttributeType::String;
  f.s = std::string(format.format_id);
  NodeAttribute s;
  s.name = "shape";
  s.type = AttributeType::Ints;
  s.ints = shape;
  NodeAttribute d;
  d.name = "output_dtype";
  d.type = AttributeType::Int;
  d.i = static_cast<std::int64_t>(dtype);
  node.attributes = {f, d, s};
  m.nodes.push_back(std::move(node));
  m.inputs.push_back({"x", DType::UInt8, true, c.input.shape()});
  m.outputs.push_back({"y", dtype, true, shape});
  return c;
}

}  // namespace onnxq
