// ModelProto <-> OnnxModel. The graph's wiring is checked in graph_check.cpp, external
// initializers in external_data.cpp; anything wrong is a clear InvalidInput, never a crash.
#include <algorithm>
#include <filesystem>
#include <set>

#include "onnx/external_data.hpp"
#include "onnx/graph_check.hpp"
#include "onnx/tensor_proto.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/io/mapped_file.hpp"

namespace onnxq {
namespace {

bool attr_type_known(AttributeType type) { return static_cast<int>(type) >= 1 && static_cast<int>(type) <= 14; }

// Old producers omitted AttributeProto.type; the field that is set tells it.
AttributeType infer_attribute_type(const onnx::AttributeProto& a) {
  if (a.has_type() && a.type() != onnx::AttributeProto::UNDEFINED) return static_cast<AttributeType>(a.type());
  if (a.has_f()) return AttributeType::Float;
  if (a.has_i()) return AttributeType::Int;
  if (a.has_s()) return AttributeType::String;
  if (a.has_t()) return AttributeType::Tensor;
  if (a.has_g()) return AttributeType::Graph;
  if (a.floats_size()) return AttributeType::Floats;
  if (a.ints_size()) return AttributeType::Ints;
  if (a.strings_size()) return AttributeType::Strings;
  if (a.tensors_size()) return AttributeType::Tensors;
  if (a.graphs_size()) return AttributeType::Graphs;
  return AttributeType::Undefined;
}

NodeAttribute attribute_from_proto(const onnx::AttributeProto& a, const std::string& where) {
  NodeAttribute attr;
  attr.name = a.name();
  const std::string label = where + ": attribute '" + a.name() + "'";
  if (a.name().empty()) invalid_input(where + ": attribute with an empty name");
  if (!a.ref_attr_name().empty())
    invalid_input(label + " refers to a function attribute ('" + a.ref_attr_name() + "'), which only functions may do");
  attr.type = infer_attribute_type(a);
  switch (attr.type) {
    case AttributeType::Float: attr.f = a.f(); break;
    case AttributeType::Int: attr.i = a.i(); break;
    case AttributeType::String: attr.s = a.s(); break;
    case AttributeType::Tensor: attr.t = detail::tensor_from_proto(a.t(), label).tensor; break;
    case AttributeType::Floats: attr.floats.assign(a.floats().begin(), a.floats().end()); break;
    case AttributeType::Ints: attr.ints.assign(a.ints().begin(), a.ints().end()); break;
    case AttributeType::Strings: attr.strings.assign(a.strings().begin(), a.strings().end()); break;
    case AttributeType::Tensors:
      for (const auto& t : a.tensors()) attr.tensors.push_back(detail::tensor_from_proto(t, label).tensor);
      break;
    case AttributeType::Undefined: invalid_input(label + " has no type and no value");
    default:
      if (attr_type_known(attr.type)) break;  // graphs, sparse tensors, type protos: type only
      invalid_input(label + " has unknown type " + std::to_string(static_cast<int>(attr.type)));
  }
  return attr;
}

ValueInfo value_info_from_proto(const onnx::ValueInfoProto& v, const std::string& where) {
  ValueInfo info;
  info.name = v.name();
  if (v.name().empty()) invalid_input(where + " has an empty name");
  if (!v.has_type()) return info;  // untyped: onnxq takes the tensor as it comes
  if (!v.type().has_tensor_type())
    invalid_input(where + " '" + v.name() + "' is not a tensor (sequence, map or optional values are not supported)");
  const auto& tt = v.type().tensor_type();
  if (tt.has_elem_type() && tt.elem_type() != 0) {
    const DTypeInfo* d = find_dtype(tt.elem_type());
    if (!d) invalid_input(where + " '" + v.name() + "' has unknown elem_type " + std::to_string(tt.elem_type()));
    info.dtype = d->dtype;
  }
  if (tt.has_shape()) {
    info.has_shape = true;
    for (const auto& dim : tt.shape().dim())
      info.dims.push_back(dim.has_dim_value() && dim.dim_value() >= 0 ? dim.dim_value() : -1);
  }
  return info;
}

void value_info_to_proto(const ValueInfo& info, onnx::ValueInfoProto* out) {
  out->set_name(info.name);
  auto* tt = out->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(static_cast<std::int32_t>(info.dtype));
  if (info.has_shape) {
    auto* shape = tt->mutable_shape();
    for (std::int64_t d : info.dims) {
      auto* dim = shape->add_dim();
      if (d >= 0) dim->set_dim_value(d);
    }
  }
}

void attribute_to_proto(const NodeAttribute& attr, onnx::AttributeProto* out) {
  out->set_name(attr.name);
  out->set_type(static_cast<onnx::AttributeProto::AttributeType>(attr.type));
  switch (attr.type) {
    case AttributeType::Float: out->set_f(attr.f); break;
    case AttributeType::Int: out->set_i(attr.i); break;
    case AttributeType::String: out->set_s(attr.s); break;
    case AttributeType::Tensor:
      detail::tensor_to_proto(attr.t, "", TensorProtoEncoding::RawData, out->mutable_t());
      break;
    case AttributeType::Floats:
      for (float f : attr.floats) out->add_floats(f);
      break;
    case AttributeType::Ints:
      for (std::int64_t i : attr.ints) out->add_ints(i);
      break;
    case AttributeType::Strings:
      for (const auto& s : attr.strings) out->add_strings(s);
      break;
    case AttributeType::Tensors:
      for (const auto& t : attr.tensors)
        detail::tensor_to_proto(t, "", TensorProtoEncoding::RawData, out->add_tensors());
      break;
    default:
      invalid_argument("cannot write attribute '" + attr.name + "' of type " +
                       std::string(attribute_type_name(attr.type)));
  }
}

}  // namespace

std::string_view attribute_type_name(AttributeType type) {
  switch (type) {
    case AttributeType::Undefined: return "UNDEFINED";
    case AttributeType::Float: return "FLOAT";
    case AttributeType::Int: return "INT";
    case AttributeType::String: return "STRING";
    case AttributeType::Tensor: return "TENSOR";
    case AttributeType::Graph: return "GRAPH";
    case AttributeType::Floats: return "FLOATS";
    case AttributeType::Ints: return "INTS";
    case AttributeType::Strings: return "STRINGS";
    case AttributeType::Tensors: return "TENSORS";
    case AttributeType::Graphs: return "GRAPHS";
    case AttributeType::SparseTensor: return "SPARSE_TENSOR";
    case AttributeType::SparseTensors: return "SPARSE_TENSORS";
    case AttributeType::TypeProto: return "TYPE_PROTO";
    case AttributeType::TypeProtos: return "TYPE_PROTOS";
  }
  return "UNKNOWN";
}

const NodeAttribute* OnnxNode::find_attribute(std::string_view attr_name) const {
  for (const auto& a : attributes)
    if (a.name == attr_name) return &a;
  return nullptr;
}

bool is_default_onnx_domain(std::string_view domain) { return domain.empty() || domain == "ai.onnx"; }

std::int64_t OnnxModel::opset_for(const OnnxNode& node) const {
  const bool default_domain = is_default_onnx_domain(node.domain);
  for (const auto& imp : opset_imports)
    if (default_domain ? is_default_onnx_domain(imp.domain) : imp.domain == node.domain) return imp.version;
  return 0;
}

OnnxModel decode_onnx_model(std::span<const std::byte> bytes, const std::string& source, const std::string& model_dir) {
  onnx::ModelProto proto;
  if (!detail::parse_message(bytes, &proto)) invalid_input(source + ": not a valid serialized ONNX ModelProto");
  if (!proto.has_graph()) invalid_input(source + ": model has no graph");
  const auto& g = proto.graph();
  if (g.sparse_initializer_size() > 0) fail(ErrorKind::Unsupported, source + ": sparse initializers are not supported");

  OnnxModel m;
  m.ir_version = proto.ir_version();
  for (const auto& imp : proto.opset_import()) m.opset_imports.push_back({imp.domain(), imp.version()});
  for (const auto& p : proto.metadata_props()) m.metadata_props.emplace_back(p.key(), p.value());
  m.graph_name = g.name();

  for (int k = 0; k < g.node_size(); ++k) {
    const auto& n = g.node(k);
    OnnxNode node;
    node.name = n.name();
    node.op_type = n.op_type();
    node.domain = n.domain();
    const std::string node_label = source + ": " + detail::node_label(node, k);
    if (n.op_type().empty()) invalid_input(node_label + " has no op_type");
    node.inputs.assign(n.input().begin(), n.input().end());
    node.outputs.assign(n.output().begin(), n.output().end());
    std::set<std::string> attr_names;
    for (const auto& a : n.attribute()) {
      if (!attr_names.insert(a.name()).second)
        invalid_input(node_label + ": attribute '" + a.name() + "' appears twice");
      node.attributes.push_back(attribute_from_proto(a, node_label));
    }
    m.nodes.push_back(std::move(node));
  }

  for (const auto& t : g.initializer()) {
    const std::string label = source + ": initializer '" + t.name() + "'";
    if (t.data_location() == onnx::TensorProto::EXTERNAL || t.external_data_size() > 0)
      m.external_initializers.push_back(detail::external_tensor_from_proto(t, model_dir, label));
    else
      m.initializers.push_back(detail::tensor_from_proto(t, label));
  }
  std::set<std::string> initializer_names;
  for (const auto& t : m.initializers) initializer_names.insert(t.name);
  for (const auto& t : m.external_initializers) initializer_names.insert(t.name);
  // Before IR 4, initializers were also listed as graph inputs; they are not fed by test data.
  for (const auto& v : g.input())
    if (!initializer_names.count(v.name())) m.inputs.push_back(value_info_from_proto(v, source + ": graph input"));
  for (const auto& v : g.output()) m.outputs.push_back(value_info_from_proto(v, source + ": graph output"));

  detail::check_graph(m, source);
  return m;
}

OnnxModel read_onnx_model_file(const std::string& path) {
  auto file = MappedFile::open(path);
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return decode_onnx_model(file->bytes(), path, dir.empty() ? "." : dir);
}

std::int64_t ir_version_for_opset(std::int64_t opset) {
  // ONNX 1.3 (opset 8, IR 3) ... 1.16 (opset 21, IR 10); see onnx/docs/Versioning.md.
  if (opset <= 8) return 3;
  if (opset == 9) return 4;
  if (opset == 10) return 5;
  if (opset == 11) return 6;
  if (opset <= 14) return 7;
  if (opset <= 18) return 8;
  if (opset <= 20) return 9;
  return 10;
}

std::string encode_model(const OnnxModel& m) {
  onnx::ModelProto proto;
  proto.set_ir_version(m.ir_version);
  proto.set_producer_name("onnxq");
  for (const auto& imp : m.opset_imports) {
    auto* op = proto.add_opset_import();
    op->set_domain(imp.domain);
    op->set_version(imp.version);
  }
  for (const auto& [key, value] : m.metadata_props) {
    auto* p = proto.add_metadata_props();
    p->set_key(key);
    p->set_value(value);
  }
  auto* g = proto.mutable_graph();
  g->set_name(m.graph_name);
  for (const OnnxNode& node : m.nodes) {
    auto* n = g->add_node();
    if (!node.name.empty()) n->set_name(node.name);
    n->set_op_type(node.op_type);
    if (!node.domain.empty()) n->set_domain(node.domain);
    for (const auto& s : node.inputs) n->add_input(s);
    for (const auto& s : node.outputs) n->add_output(s);
    for (const auto& a : node.attributes) attribute_to_proto(a, n->add_attribute());
  }
  for (const auto& t : m.initializers)
    detail::tensor_to_proto(t.tensor, t.name, TensorProtoEncoding::RawData, g->add_initializer());
  for (const auto& t : m.external_initializers) detail::external_tensor_to_proto(t, g->add_initializer());
  for (const auto& v : m.inputs) value_info_to_proto(v, g->add_input());
  for (const auto& v : m.outputs) value_info_to_proto(v, g->add_output());
  std::string out;
  if (!proto.SerializeToString(&out)) invalid_input("cannot serialize the model (larger than 2 GiB?)");
  return out;
}

}  // namespace onnxq
