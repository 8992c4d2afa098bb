// TensorProto and ModelProto decoding: every dtype from raw_data and from its typed field, the
// length/field rules, and single-node model loading. The protos are built here with the real schema.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <functional>

#include "onnxq/core/error.hpp"
#include "onnxq/onnx/onnx_io.hpp"
#include "onnxq/onnx/tensor_compare.hpp"

namespace onnxq {
namespace {

using Bytes = std::vector<std::uint8_t>;

std::span<const std::byte> as_span(const std::string& s) { return std::as_bytes(std::span(s.data(), s.size())); }

std::string serialize(const google::protobuf::MessageLite& m) {
  std::string s;
  EXPECT_TRUE(m.SerializeToString(&s));
  return s;
}

onnx::TensorProto proto_of(DType dtype, const Shape& dims, const std::string& name = "t") {
  onnx::TensorProto p;
  p.set_name(name);
  p.set_data_type(static_cast<int>(dtype));
  for (auto d : dims) p.add_dims(d);
  return p;
}

Bytes bytes_of(const Tensor& t) {
  Bytes out(t.bytes().size());
  if (!out.empty()) std::memcpy(out.data(), t.bytes().data(), out.size());
  return out;
}

NamedTensor decode(const onnx::TensorProto& p) { return decode_tensor_proto(as_span(serialize(p)), "test.pb"); }

// One dtype: the expected little-endian bytes, and how a producer fills the typed field.
struct DtypeCase {
  const char* label;
  DType dtype;
  Shape dims;
  Bytes expected;
  std::function<void(onnx::TensorProto&)> fill_typed;
};

std::vector<DtypeCase> dtype_cases() {
  using P = onnx::TensorProto;
  return {
      {"float",
       DType::Float,
       {2},
       {0x00, 0x00, 0xC0, 0x3F, 0x00, 0x00, 0x00, 0xC0},
       [](P& p) { p.add_float_data(1.5f), p.add_float_data(-2.0f); }},
      {"double", DType::Double, {1}, {0, 0, 0, 0, 0, 0, 0xF0, 0x3F}, [](P& p) { p.add_double_data(1.0); }},
      {"float16",
       DType::Float16,
       {2},
       {0x00, 0x3C, 0x00, 0xC0},
       [](P& p) { p.add_int32_data(0x3C00), p.add_int32_data(0xC000); }},
      {"bfloat16", DType::BFloat16, {1}, {0x80, 0x3F}, [](P& p) { p.add_int32_data(0x3F80); }},
      {"int8",
       DType::Int8,
       {3},
       {0xFF, 0x7F, 0x80},
       [](P& p) { p.add_int32_data(-1), p.add_int32_data(127), p.add_int32_data(-128); }},
      {"int16", DType::Int16, {2}, {0xFE, 0xFF, 0x2C, 0x01}, [](P& p) { p.add_int32_data(-2), p.add_int32_data(300); }},
      {"int32",
       DType::Int32,
       {2},
       {0xFF, 0xFF, 0xFF, 0xFF, 0x78, 0x56, 0x34, 0x12},
       [](P& p) { p.add_int32_data(-1), p.add_int32_data(0x12345678); }},
      {"int64",
       DType::Int64,
       {1},
       {0xFD, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF},
       [](P& p) { p.add_int64_data(-3); }},
      {"uint8", DType::UInt8, {2}, {0x00, 0xFF}, [](P& p) { p.add_int32_data(0), p.add_int32_data(255); }},
      {"uint16", DType::UInt16, {1}, {0xFF, 0xFF}, [](P& p) { p.add_int32_data(65535); }},
      {"uint32", DType::UInt32, {1}, {0xEF, 0xBE, 0xAD, 0xDE}, [](P& p) { p.add_uint64_data(0xDEADBEEFu); }},
      {"uint64",
       DType::UInt64,
       {1},
       {0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01},
       [](P& p) { p.add_uint64_data(0x0102030405060708ull); }},
      {"bool",
       DType::Bool,
       {3},
       {1, 0, 1},
       [](P& p) { p.add_int32_data(1), p.add_int32_data(0), p.add_int32_data(1); }},
      {"complex64",
       DType::Complex64,
       {1},
       {0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x80, 0xBF},
       [](P& p) { p.add_float_data(1.0f), p.add_float_data(-1.0f); }},
      {"complex128",
       DType::Complex128,
       {1},
       {0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0xE0, 0x3F},
       [](P& p) { p.add_double_data(2.0), p.add_double_data(0.5); }},
      {"float8e4m3fn",
       DType::Float8E4M3FN,
       {2},
       {0x38, 0x7F},
       [](P& p) { p.add_int32_data(0x38), p.add_int32_data(0x7F); }},
      {"float8e4m3fnuz", DType::Float8E4M3FNUZ, {1}, {0x40}, [](P& p) { p.add_int32_data(0x40); }},
      {"float8e5m2", DType::Float8E5M2, {1}, {0x3C}, [](P& p) { p.add_int32_data(0x3C); }},
      {"float8e5m2fnuz", DType::Float8E5M2FNUZ, {1}, {0x40}, [](P& p) { p.add_int32_data(0x40); }},
      // 4-bit: two per byte, low nibble first; int32_data holds the packed bytes.
      {"int4", DType::Int4, {3}, {0xF1, 0x07}, [](P& p) { p.add_int32_data(0xF1), p.add_int32_data(0x07); }},
      {"uint4", DType::UInt4, {2}, {0xC3}, [](P& p) { p.add_int32_data(0xC3); }},
      {"float4e2m1", DType::Float4E2M1, {2}, {0xF2}, [](P& p) { p.add_int32_data(0xF2); }},
  };
}

TEST(TensorProtoDecode, EveryDtypeFromRawDataAndFromTypedField) {
  for (const DtypeCase& c : dtype_cases()) {
    SCOPED_TRACE(c.label);
    onnx::TensorProto raw = proto_of(c.dtype, c.dims);
    raw.set_raw_data(c.expected.data(), c.expected.size());
    onnx::TensorProto typed = proto_of(c.dtype, c.dims);
    c.fill_typed(typed);
    for (const auto* p : {&raw, &typed}) {
      NamedTensor t = decode(*p);
      EXPECT_EQ(t.name, "t");
      EXPECT_EQ(t.tensor.dtype(), c.dtype);
      EXPECT_EQ(t.tensor.shape(), c.dims);
      EXPECT_EQ(bytes_of(t.tensor), c.expected);
    }
  }
}

TEST(TensorProtoDecode, ElementValuesOfTheNarrowTypes) {
  auto decoded = [](DType dtype, Shape dims, Bytes raw) {
    onnx::TensorProto p = proto_of(dtype, dims);
    p.set_raw_data(raw.data(), raw.size());
    return decode(p).tensor;
  };
  const Tensor i4 = decoded(DType::Int4, {3}, {0xF1, 0x07});
  EXPECT_EQ(element_to_string(i4, 0), "1");
  EXPECT_EQ(element_to_string(i4, 1), "-1");
  EXPECT_EQ(element_to_string(i4, 2), "7");
  const Tensor f4 = decoded(DType::Float4E2M1, {2}, {0xF2});
  EXPECT_EQ(element_to_string(f4, 0), "1");
  EXPECT_EQ(element_to_string(f4, 1), "-6");
  EXPECT_EQ(element_to_string(decoded(DType::Float8E4M3FN, {1}, {0x38}), 0), "1");
  EXPECT_EQ(element_to_string(decoded(DType::Float8E4M3FN, {1}, {0x7E}), 0), "448");
  EXPECT_EQ(element_to_string(decoded(DType::Float8E4M3FNUZ, {1}, {0x7F}), 0), "240");
  EXPECT_EQ(element_to_string(decoded(DType::Float8E5M2, {1}, {0x7B}), 0), "57344");
  EXPECT_EQ(element_to_string(decoded(DType::Float8E5M2, {1}, {0xFC}), 0), "-inf");
  EXPECT_EQ(element_to_string(decoded(DType::Float8E5M2FNUZ, {1}, {0x01}), 0), "7.62939453e-06");  // 2^-17
  EXPECT_EQ(element_to_string(decoded(DType::BFloat16, {1}, {0xC0, 0x3F}), 0), "1.5");
}

TEST(TensorProtoDecode, StringsFromStringData) {
  onnx::TensorProto p = proto_of(DType::String, {3});
  p.add_string_data("a");
  p.add_string_data("");
  p.add_string_data(std::string("x\0y", 3));
  const NamedTensor t = decode(p);
  ASSERT_EQ(t.tensor.dtype(), DType::String);
  EXPECT_EQ(t.tensor.strings(), (std::vector<std::string>{"a", "", std::string("x\0y", 3)}));
}

TEST(TensorProtoDecode, OddFourBitCountClearsThePaddingNibble) {
  onnx::TensorProto p = proto_of(DType::UInt4, {1});
  p.set_raw_data("\xF3", 1);
  EXPECT_EQ(bytes_of(decode(p).tensor), Bytes{0x03});
}

TEST(TensorProtoDecode, EmptyTensorNeedsNoData) {
  const NamedTensor t = decode(proto_of(DType::Float, {2, 0}));
  EXPECT_EQ(t.tensor.shape(), (Shape{2, 0}));
  EXPECT_EQ(t.tensor.element_count(), 0u);
  // A scalar (no dims) has one element.
  onnx::TensorProto scalar = proto_of(DType::Int64, {});
  scalar.add_int64_data(42);
  EXPECT_EQ(decode(scalar).tensor.at<std::int64_t>(0), 42);
}

// Decoding must throw onnxq::Error of `kind` whose message contains `needle`.
void expect_error(const onnx::TensorProto& p, ErrorKind kind, const std::string& needle) {
  try {
    decode(p);
    ADD_FAILURE() << "expected an error containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("test.pb"), std::string::npos) << e.what();
  }
}

TEST(TensorProtoDecode, DataLengthMustAgreeWithDims) {
  onnx::TensorProto raw = proto_of(DType::Float, {3});
  raw.set_raw_data(std::string(8, '\0'));
  expect_error(raw, ErrorKind::InvalidInput, "needs 12 bytes of raw_data, has 8");

  onnx::TensorProto typed = proto_of(DType::Int8, {3});
  typed.add_int32_data(1);
  typed.add_int32_data(2);
  expect_error(typed, ErrorKind::InvalidInput, "needs 3 int32_data entries, has 2");

  onnx::TensorProto four_bit = proto_of(DType::Int4, {3});
  four_bit.add_int32_data(1);
  expect_error(four_bit, ErrorKind::InvalidInput, "needs 2 int32_data entries, has 1");

  onnx::TensorProto complex = proto_of(DType::Complex64, {2});
  complex.add_float_data(1);
  complex.add_float_data(2);
  expect_error(complex, ErrorKind::InvalidInput, "needs 4 float_data entries, has 2");

  expect_error(proto_of(DType::Double, {2}), ErrorKind::InvalidInput, "has no data");

  onnx::TensorProto strings = proto_of(DType::String, {2});
  strings.add_string_data("only one");
  expect_error(strings, ErrorKind::InvalidInput, "needs 2 string_data entries, has 1");
}

TEST(TensorProtoDecode, HugeDimsWithLittleDataAreRejectedBeforeAllocating) {
  onnx::TensorProto p = proto_of(DType::Float, {1ll << 61});
  p.set_raw_data(std::string(4, '\0'));
  expect_error(p, ErrorKind::InvalidInput, "bytes");
  expect_error(proto_of(DType::UInt8, {1ll << 40, 1ll << 40}), ErrorKind::InvalidInput, "overflows");
  onnx::TensorProto strings = proto_of(DType::String, {1ll << 60});
  expect_error(strings, ErrorKind::InvalidInput, "has no data");
}

TEST(TensorProtoDecode, FieldRules) {
  onnx::TensorProto both = proto_of(DType::Float, {1});
  both.set_raw_data(std::string(4, '\0'));
  both.add_float_data(1);
  expect_error(both, ErrorKind::InvalidInput, "both raw_data and float_data");

  onnx::TensorProto wrong = proto_of(DType::Float, {1});
  wrong.add_int64_data(1);
  expect_error(wrong, ErrorKind::InvalidInput, "has int64_data entries");

  onnx::TensorProto uint32_in_int32 = proto_of(DType::UInt32, {1});
  uint32_in_int32.add_int32_data(1);
  expect_error(uint32_in_int32, ErrorKind::InvalidInput, "belong in uint64_data");

  onnx::TensorProto raw_strings = proto_of(DType::String, {1});
  raw_strings.set_raw_data("abc");
  expect_error(raw_strings, ErrorKind::InvalidInput, "must use string_data");
}

TEST(TensorProtoDecode, TypedValuesMustFitTheirType) {
  onnx::TensorProto u8 = proto_of(DType::UInt8, {1});
  u8.add_int32_data(256);
  expect_error(u8, ErrorKind::InvalidInput, "outside [0, 255]");
  onnx::TensorProto i8 = proto_of(DType::Int8, {1});
  i8.add_int32_data(-129);
  expect_error(i8, ErrorKind::InvalidInput, "outside [-128, 127]");
  onnx::TensorProto f16 = proto_of(DType::Float16, {1});
  f16.add_int32_data(-1);
  expect_error(f16, ErrorKind::InvalidInput, "outside [0, 65535]");
  onnx::TensorProto b = proto_of(DType::Bool, {1});
  b.add_int32_data(2);
  expect_error(b, ErrorKind::InvalidInput, "outside [0, 1]");
  onnx::TensorProto u32 = proto_of(DType::UInt32, {1});
  u32.add_uint64_data(1ull << 32);
  expect_error(u32, ErrorKind::InvalidInput, "does not fit UINT32");
  onnx::TensorProto raw_bool = proto_of(DType::Bool, {2});
  raw_bool.set_raw_data("\x01\x02", 2);
  expect_error(raw_bool, ErrorKind::InvalidInput, "must be 0 or 1");
}

TEST(TensorProtoDecode, BadHeadersAndUnsupportedLayouts) {
  onnx::TensorProto external = proto_of(DType::Float, {1});
  external.set_data_location(onnx::TensorProto::EXTERNAL);
  auto* entry = external.add_external_data();
  entry->set_key("location");
  entry->set_value("weights.bin");
  expect_error(external, ErrorKind::Unsupported, "external data");

  onnx::TensorProto segment = proto_of(DType::Float, {1});
  segment.mutable_segment()->set_begin(0);
  segment.mutable_segment()->set_end(1);
  segment.add_float_data(1);
  expect_error(segment, ErrorKind::Unsupported, "segment");

  onnx::TensorProto negative = proto_of(DType::Float, {2, -1});
  expect_error(negative, ErrorKind::InvalidInput, "dims[1] is -1");
  expect_error(proto_of(DType::Undefined, {1}), ErrorKind::InvalidInput, "UNDEFINED");
  expect_error(proto_of(static_cast<DType>(99), {1}), ErrorKind::InvalidInput, "unknown data_type 99");
}

TEST(TensorProtoDecode, GarbageBytesAreAOneLineErrorNamingTheSource) {
  // A field key with wire type 7 (invalid) cannot parse.
  const std::string garbage = "\x0f\xff\xff\xff";
  try {
    decode_tensor_proto(as_span(garbage), "broken/input_0.pb");
    FAIL() << "garbage parsed";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
    EXPECT_EQ(std::string(e.what()), "broken/input_0.pb: not a valid serialized TensorProto");
  }
  // Truncations of a valid tensor either fail cleanly or decode to something consistent.
  onnx::TensorProto p = proto_of(DType::Float, {4});
  p.set_raw_data(std::string(16, '\x01'));
  const std::string full = serialize(p);
  for (std::size_t n = 0; n < full.size(); ++n) {
    try {
      const NamedTensor t = decode_tensor_proto(as_span(full.substr(0, n)), "cut.pb");
      EXPECT_EQ(t.tensor.bytes().size(), dtype_storage_bytes(t.tensor.dtype(), t.tensor.element_count()));
    } catch (const Error&) {
    }
  }
}

TEST(TensorProtoEncode, BothEncodingsRoundTripEveryDtype) {
  for (const DtypeCase& c : dtype_cases()) {
    SCOPED_TRACE(c.label);
    std::vector<std::byte> storage(c.expected.size());
    std::memcpy(storage.data(), c.expected.data(), storage.size());
    const Tensor t = Tensor::from_bytes(c.dtype, c.dims, storage);
    for (auto encoding : {TensorProtoEncoding::RawData, TensorProtoEncoding::TypedFields}) {
      const std::string bytes = encode_tensor_proto(t, "x", encoding);
      onnx::TensorProto parsed;
      ASSERT_TRUE(parsed.ParseFromString(bytes));
      EXPECT_EQ(parsed.has_raw_data(), encoding == TensorProtoEncoding::RawData);
      const NamedTensor back = decode_tensor_proto(as_span(bytes), "x.pb");
      EXPECT_EQ(back.name, "x");
      EXPECT_EQ(back.tensor.dtype(), c.dtype);
      EXPECT_EQ(back.tensor.shape(), c.dims);
      EXPECT_EQ(bytes_of(back.tensor), c.expected);
    }
  }
  // The typed encoding uses the field the ONNX schema names for the type.
  const Tensor u32 = Tensor::from_bytes(DType::UInt32, {1}, std::as_bytes(std::span("\x01\x00\x00\x80", 4)));
  onnx::TensorProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(encode_tensor_proto(u32, "u", TensorProtoEncoding::TypedFields)));
  ASSERT_EQ(parsed.uint64_data_size(), 1);
  EXPECT_EQ(parsed.uint64_data(0), 0x80000001u);
}

// ---- models ----

onnx::ModelProto unpack_model() {
  onnx::ModelProto m;
  m.set_ir_version(10);
  auto* opset = m.add_opset_import();
  opset->set_domain("");
  opset->set_version(29);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* n = g->add_node();
  n->set_op_type("Unpack");
  n->add_input("X");
  n->add_input("count");
  n->add_output("Y");
  auto* bits = n->add_attribute();
  bits->set_name("bits");
  bits->set_type(onnx::AttributeProto::INT);
  bits->set_i(3);
  for (auto [name, type] : {std::pair{"X", 2}, std::pair{"count", 7}}) {
    auto* in = g->add_input();
    in->set_name(name);
    in->mutable_type()->mutable_tensor_type()->set_elem_type(type);
  }
  auto* out = g->add_output();
  out->set_name("Y");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(2);
  auto* dim = out->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim();
  dim->set_dim_param("N");
  return m;
}

OnnxModel decode_model(const onnx::ModelProto& m) { return decode_onnx_model(as_span(serialize(m)), "model.onnx"); }

void expect_model_error(const onnx::ModelProto& m, const std::string& needle) {
  try {
    decode_model(m);
    ADD_FAILURE() << "expected an error containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("model.onnx: ", 0), 0u) << e.what();
  }
}

TEST(ModelDecode, SingleNodeWithAttributesAndBindings) {
  const OnnxModel m = decode_model(unpack_model());
  EXPECT_EQ(m.ir_version, 10);
  EXPECT_EQ(m.nodes[0].op_type, "Unpack");
  EXPECT_EQ(m.opset_for(m.nodes[0]), 29);
  EXPECT_EQ(m.nodes[0].inputs, (std::vector<std::string>{"X", "count"}));
  ASSERT_EQ(m.inputs.size(), 2u);
  EXPECT_EQ(m.inputs[0].dtype, DType::UInt8);
  EXPECT_EQ(m.inputs[1].dtype, DType::Int64);
  EXPECT_FALSE(m.inputs[1].has_shape);
  ASSERT_EQ(m.outputs.size(), 1u);
  EXPECT_EQ(m.outputs[0].dims, (std::vector<std::int64_t>{-1}));  // symbolic
  const NodeAttribute* bits = m.nodes[0].find_attribute("bits");
  ASSERT_NE(bits, nullptr);
  EXPECT_EQ(bits->type, AttributeType::Int);
  EXPECT_EQ(bits->i, 3);
  EXPECT_EQ(m.nodes[0].find_attribute("radix"), nullptr);
}

TEST(ModelDecode, OpsetImportOfTheNodesDomain) {
  onnx::ModelProto m = unpack_model();
  m.mutable_opset_import(0)->set_domain("ai.onnx");
  EXPECT_EQ(decode_model(m).opset_for(decode_model(m).nodes[0]), 29);
  m.mutable_graph()->mutable_node(0)->set_domain("ai.onnx");
  EXPECT_EQ(decode_model(m).opset_for(decode_model(m).nodes[0]), 29);
  // Another domain's import does not count.
  m.mutable_opset_import(0)->set_domain("com.example");
  expect_model_error(m, "imports no opset");
  m.clear_opset_import();
  expect_model_error(m, "imports no opset");
}

TEST(ModelDecode, AttributeTypeInferredWhenMissingAndTensorAttributes) {
  onnx::ModelProto m = unpack_model();
  auto* node = m.mutable_graph()->mutable_node(0);
  node->mutable_attribute(0)->clear_type();
  auto* t = node->add_attribute();
  t->set_name("value");
  t->set_type(onnx::AttributeProto::TENSOR);
  t->mutable_t()->set_data_type(1);
  t->mutable_t()->add_float_data(2.5f);
  const OnnxModel decoded = decode_model(m);
  EXPECT_EQ(decoded.nodes[0].find_attribute("bits")->type, AttributeType::Int);
  const NodeAttribute* value = decoded.nodes[0].find_attribute("value");
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(value->t.at<float>(0), 2.5f);
}

TEST(ModelDecode, RejectsAGraphThatIsNotBound) {
  onnx::ModelProto two = unpack_model();
  *two.mutable_graph()->add_node() = two.graph().node(0);
  expect_model_error(two, "node #1 (Unpack): output 'Y' is produced twice");

  onnx::ModelProto none = unpack_model();
  none.mutable_graph()->clear_node();
  expect_model_error(none, "graph output 'Y' is not produced by any node");

  onnx::ModelProto unbound = unpack_model();
  unbound.mutable_graph()->mutable_node(0)->set_input(1, "nothing");
  expect_model_error(
      unbound, "node #0 (Unpack): input 1 'nothing' is neither a graph input, an initializer nor a node's output");

  onnx::ModelProto stray_output = unpack_model();
  stray_output.mutable_graph()->mutable_output(0)->set_name("Z");
  expect_model_error(stray_output, "graph output 'Z' is not produced by any node");

  onnx::ModelProto dup_attr = unpack_model();
  *dup_attr.mutable_graph()->mutable_node(0)->add_attribute() = dup_attr.graph().node(0).attribute(0);
  expect_model_error(dup_attr, "attribute 'bits' appears twice");

  onnx::ModelProto ref_attr = unpack_model();
  ref_attr.mutable_graph()->mutable_node(0)->mutable_attribute(0)->set_ref_attr_name("outer");
  expect_model_error(ref_attr, "function attribute");

  onnx::ModelProto sequence_input = unpack_model();
  sequence_input.mutable_graph()->mutable_input(0)->mutable_type()->mutable_sequence_type();
  expect_model_error(sequence_input, "is not a tensor");

  onnx::ModelProto no_graph = unpack_model();
  no_graph.clear_graph();
  expect_model_error(no_graph, "model has no graph");
}

// A node listed before the node whose output it reads runs after it; a cycle names a node in it.
TEST(ModelDecode, NodesAreOrderedByTheirInputs) {
  onnx::ModelProto m = unpack_model();
  auto* g = m.mutable_graph();
  onnx::NodeProto identity;
  identity.set_name("after");
  identity.set_op_type("Identity");
  identity.add_input("Y");
  identity.add_output("Z");
  *g->mutable_node()->Add() = identity;
  g->mutable_node()->SwapElements(0, 1);  // Identity first in the file
  g->mutable_output(0)->set_name("Z");
  const OnnxModel decoded = decode_model(m);
  ASSERT_EQ(decoded.nodes.size(), 2u);
  EXPECT_EQ(decoded.nodes[0].op_type, "Unpack");
  EXPECT_EQ(decoded.nodes[1].name, "after");

  onnx::ModelProto cycle = m;
  cycle.mutable_graph()->mutable_node(1)->set_input(0, "Z");  // Unpack reads Identity's output
  expect_model_error(cycle, "node 'after' (Identity) is in a cycle");
}

TEST(ModelDecode, ExternalDataNeedsTheModelsFolder) {
  onnx::ModelProto m = unpack_model();
  auto* init = m.mutable_graph()->add_initializer();
  init->set_name("count");
  init->set_data_type(7);
  init->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* location = init->add_external_data();
  location->set_key("location");
  location->set_value("count.bin");
  expect_model_error(m, "initializer 'count': external data needs the model's folder");
  location->set_value("/etc/passwd");
  expect_model_error(m, "initializer 'count': external data needs the model's folder");
}

TEST(ModelDecode, InitializersAreNotTestDataInputs) {
  onnx::ModelProto m = unpack_model();
  auto* init = m.mutable_graph()->add_initializer();
  init->set_name("count");
  init->set_data_type(7);
  init->add_int64_data(8);
  const OnnxModel decoded = decode_model(m);
  ASSERT_EQ(decoded.inputs.size(), 1u);  // "count" is listed as a graph input but fed by the initializer
  EXPECT_EQ(decoded.inputs[0].name, "X");
  ASSERT_EQ(decoded.initializers.size(), 1u);
  EXPECT_EQ(decoded.initializers[0].tensor.at<std::int64_t>(0), 8);
  // An empty node input name is an absent optional input, not an unbound name.
  onnx::ModelProto optional = unpack_model();
  optional.mutable_graph()->mutable_node(0)->add_input("");
  EXPECT_EQ(decode_model(optional).nodes[0].inputs.back(), "");
}

TEST(ModelDecode, GarbageIsAnErrorNamingTheFile) {
  const std::string garbage = "\x0f\x01\x02";
  try {
    decode_onnx_model(as_span(garbage), "cases/x/model.onnx");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "cases/x/model.onnx: not a valid serialized ONNX ModelProto");
  }
  // Every truncation of a valid model is either a clean error or a valid model; never a crash.
  const std::string full = serialize(unpack_model());
  for (std::size_t n = 0; n < full.size(); ++n) {
    try {
      decode_onnx_model(as_span(full.substr(0, n)), "cut.onnx");
    } catch (const Error&) {
    }
  }
}

TEST(ModelEncode, RoundTrip) {
  const OnnxModel m = decode_model(unpack_model());
  const std::string bytes = encode_model(m);
  const OnnxModel back = decode_onnx_model(as_span(bytes), "again.onnx");
  EXPECT_EQ(back.ir_version, 10);
  EXPECT_EQ(back.opset_for(m.nodes[0]), 29);
  EXPECT_EQ(back.nodes[0].op_type, "Unpack");
  EXPECT_EQ(back.nodes[0].inputs, m.nodes[0].inputs);
  EXPECT_EQ(back.nodes[0].find_attribute("bits")->i, 3);
  EXPECT_EQ(back.inputs[0].dtype, DType::UInt8);
  EXPECT_EQ(back.outputs[0].dims, (std::vector<std::int64_t>{-1}));
}

TEST(ModelEncode, IrVersionForOpset) {
  EXPECT_EQ(ir_version_for_opset(9), 4);
  EXPECT_EQ(ir_version_for_opset(11), 6);
  EXPECT_EQ(ir_version_for_opset(13), 7);
  EXPECT_EQ(ir_version_for_opset(21), 10);
  EXPECT_EQ(ir_version_for_opset(23), 10);
  EXPECT_EQ(ir_version_for_opset(29), 10);
}

}  // namespace
}  // namespace onnxq
