// GGUF -> ONNX graph with external data into the .gguf (onnxq/onnx/gguf_export.hpp). Nothing of
// the tensors is read or copied: the graph only records where each tensor's bytes are.
#include "onnxq/onnx/gguf_export.hpp"

#include <filesystem>
#include <set>

#include "onnxq/core/error.hpp"
#include "onnxq/decode/decode_blocks.hpp"
#include "onnxq/io/atomic_file.hpp"
#include "onnxq/io/remote_file.hpp"

namespace onnxq {
namespace {

namespace fs = std::filesystem;

constexpr std::int64_t kOpset = 29;  // DequantizePacked-29

// The shard's path relative to the .onnx's folder. ONNX readers (onnxq run among them) refuse
// `..` and absolute locations, so the .gguf must sit in that folder or below it.
std::string shard_location(const GgufFile& shard, const fs::path& onnx_dir) {
  std::error_code ec;
  const fs::path file = fs::weakly_canonical(fs::absolute(shard.path), ec);
  if (ec) invalid_input(shard.path + ": cannot resolve its path: " + ec.message());
  const fs::path rel = file.lexically_relative(onnx_dir);
  if (rel.empty() || *rel.begin() == "..")
    invalid_input(shard.path + " is not inside " + onnx_dir.string() +
                  ", the folder of the .onnx; ONNX external data must lie in the model's folder or below it, so "
                  "write the .onnx beside the .gguf (or in a folder above it)");
  return rel.generic_string();
}

NodeAttribute string_attr(std::string name, std::string value) {
  NodeAttribute a;
  a.name = std::move(name);
  a.type = AttributeType::String;
  a.s = std::move(value);
  return a;
}

NodeAttribute int_attr(std::string name, std::int64_t value) {
  NodeAttribute a;
  a.name = std::move(name);
  a.type = AttributeType::Int;
  a.i = value;
  return a;
}

NodeAttribute ints_attr(std::string name, std::vector<std::int64_t> values) {
  NodeAttribute a;
  a.name = std::move(name);
  a.type = AttributeType::Ints;
  a.ints = std::move(values);
  return a;
}

}  // namespace

DType onnx_export_dtype(const BlockFormat& format, std::optional<DType> float_dtype) {
  if (float_dtype && *float_dtype != DType::Float && *float_dtype != DType::Float16 && *float_dtype != DType::BFloat16)
    invalid_argument("export: the float type must be FLOAT, FLOAT16 or BFLOAT16, got " +
                     std::string(dtype_info(*float_dtype).onnx_name));
  return export_decode_dtype(format, float_dtype);
}

OnnxModel gguf_onnx_model(const GgufModel& model, std::span<const TensorInfo* const> tensors,
                          const std::string& onnx_path, std::optional<DType> float_dtype) {
  for (const GgufFile& shard : model.shards()) {
    if (is_remote_path(shard.path))
      invalid_input(shard.path + ": a remote model cannot be exported to ONNX (external data must be a local file)");
    if (shard.big_endian)
      invalid_input(shard.path +
                    " is big-endian, and ONNX external data is little-endian; convert it first with "
                    "`onnxq convert-endian`");
  }
  std::error_code ec;
  const fs::path onnx_dir = fs::weakly_canonical(fs::absolute(onnx_path).parent_path(), ec);
  if (ec) invalid_input(onnx_path + ": cannot resolve its folder: " + ec.message());
  std::vector<std::string> locations;
  for (const GgufFile& shard : model.shards()) locations.push_back(shard_location(shard, onnx_dir));

  OnnxModel m;
  m.ir_version = ir_version_for_opset(kOpset);
  m.opset_imports.push_back({"", kOpset});
  const GgufValue* name = model.find_metadata("general.name");
  m.graph_name = name && name->type() == GgufType::String ? std::string(name->as_string())
                                                          : fs::path(model.primary().path).stem().string();
  for (const GgufKeyValue& kv : model.metadata())
    if (kv.key.starts_with("general.") && kv.value.type() == GgufType::String)
      m.metadata_props.emplace_back(std::string(kv.key), std::string(kv.value.as_string()));
  m.metadata_props.emplace_back("onnxq.gguf", locations.front());

  std::vector<const TensorInfo*> all;
  if (tensors.empty()) {
    for (const TensorInfo& t : model.tensors()) all.push_back(&t);
    tensors = all;
  }
  std::set<std::string> names;
  for (const TensorInfo* t : tensors) names.emplace(t->name);
  for (const TensorInfo* t : tensors) {
    const std::string tensor_name(t->name);
    if (!t->format)
      invalid_input(model.primary().path + ": tensor '" + tensor_name + "' is of type " + t->type_name() +
                    ", which onnxq does not know");
    const BlockFormat& format = *t->format;
    const DType out = onnx_export_dtype(format, float_dtype);
    // The bytes' initializer: UINT8 blocks for DequantizePacked, else the plain type itself.
    ExternalTensor bytes;
    bytes.name = tensor_name + (format.is_block_format() ? ":packed" : ":data");
    if (!names.insert(bytes.name).second)
      invalid_input(model.primary().path + ": the initializer name '" + bytes.name + "' is also a tensor's name");
    bytes.location = locations.at(t->shard);
    bytes.offset = t->file_offset;
    bytes.length = t->byte_size;
    if (format.is_block_format()) {
      bytes.dtype = DType::UInt8;
      bytes.dims = {static_cast<std::int64_t>(t->byte_size)};
    } else {
      bytes.dtype = format.plain_dtype;
      bytes.dims = t->onnx_shape();
    }
    OnnxNode node;
    node.name = tensor_name;
    node.inputs = {bytes.name};
    node.outputs = {tensor_name};
    if (format.is_block_format()) {
      node.op_type = "DequantizePacked";
      node.attributes = {string_attr("format", std::string(format.format_id)),
                         int_attr("output_dtype", static_cast<int>(out)), ints_attr("shape", t->onnx_shape())};
    } else if (out != format.plain_dtype) {
      node.op_type = "Cast";
      node.attributes = {int_attr("to", static_cast<int>(out))};
    } else {
      node.op_type = "Identity";  // a graph output must be some node's output here
    }
    m.external_initializers.push_back(std::move(bytes));
    m.nodes.push_back(std::move(node));
    m.outputs.push_back({tensor_name, out, true, t->onnx_shape()});
  }
  return m;
}

std::uint64_t export_onnx(const GgufModel& model, std::span<const TensorInfo* const> tensors,
                          const std::string& onnx_path, std::optional<DType> float_dtype) {
  const std::string bytes = encode_model(gguf_onnx_model(model, tensors, onnx_path, float_dtype));
  AtomicFile file = AtomicFile::create(onnx_path);
  file.write(bytes.data(), bytes.size());
  file.commit();
  return bytes.size();
}

}  // namespace onnxq
