// TensorProto <-> Tensor. Every count from the file is checked against the data actually
// present before anything is allocated, so a tiny file cannot claim a huge tensor.
#include "onnx/tensor_proto.hpp"

#include <bit>
#include <cstring>
#include <limits>

#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/io/mapped_file.hpp"
#include "onnxq/io/same_file.hpp"
#include "onnxq/npy/reader.hpp"

namespace onnxq::detail {
namespace {

// raw_data and the typed fields are little-endian; onnxq copies them as they are.
static_assert(std::endian::native == std::endian::little, "onnxq assumes a little-endian host");

// Which typed field carries a dtype's elements when raw_data is not used (onnx.proto comments).
enum class TypedField { Float, Double, Int32, Int64, UInt64, String };

TypedField typed_field_for(DType dtype) {
  switch (dtype) {
    case DType::Float:
    case DType::Complex64: return TypedField::Float;
    case DType::Double:
    case DType::Complex128: return TypedField::Double;
    case DType::Int64: return TypedField::Int64;
    case DType::UInt32:
    case DType::UInt64: return TypedField::UInt64;
    case DType::String: return TypedField::String;
    default: return TypedField::Int32;  // 8/16/32-bit ints, bool, 16-bit and 8-bit floats, packed 4-bit
  }
}

const char* field_name(TypedField field) {
  switch (field) {
    case TypedField::Float: return "float_data";
    case TypedField::Double: return "double_data";
    case TypedField::Int32: return "int32_data";
    case TypedField::Int64: return "int64_data";
    case TypedField::UInt64: return "uint64_data";
    case TypedField::String: return "string_data";
  }
  return "?";
}

int field_size(const onnx::TensorProto& p, TypedField field) {
  switch (field) {
    case TypedField::Float: return p.float_data_size();
    case TypedField::Double: return p.double_data_size();
    case TypedField::Int32: return p.int32_data_size();
    case TypedField::Int64: return p.int64_data_size();
    case TypedField::UInt64: return p.uint64_data_size();
    case TypedField::String: return p.string_data_size();
  }
  return 0;
}

bool is_four_bit(DType dtype) { return dtype_info(dtype).bits == 4; }
bool is_complex(DType dtype) { return dtype == DType::Complex64 || dtype == DType::Complex128; }

// Entries of the typed field for `count` elements: complex numbers take two, 4-bit values share one.
std::uint64_t typed_entries(DType dtype, std::uint64_t count) {
  if (is_complex(dtype)) return count * 2;  // count <= 2^63-1, so no overflow
  if (is_four_bit(dtype)) return (count + 1) / 2;
  return count;
}

// Range of one int32_data entry for a dtype: the value, or its bit pattern for floats.
struct IntRange {
  std::int64_t min, max;
};
IntRange int32_entry_range(DType dtype) {
  switch (dtype) {
    case DType::Int8: return {-128, 127};
    case DType::Int16: return {-32768, 32767};
    case DType::Int32: return {INT32_MIN, INT32_MAX};
    case DType::UInt16:
    case DType::Float16:
    case DType::BFloat16: return {0, 65535};
    case DType::Bool: return {0, 1};
    default: return {0, 255};  // uint8, float8 bit patterns, and bytes of two packed 4-bit values
  }
}

std::string describe(const std::string& where, const onnx::TensorProto& p, DType dtype, const Shape& dims) {
  std::string s = where + ": " + std::string(dtype_info(dtype).onnx_name) + " tensor";
  if (!p.name().empty()) s += " '" + p.name() + "'";
  return s + " with dims " + shape_to_string(dims);
}

// 4-bit tensors with an odd count: the high nibble of the last byte is padding. Clearing it
// makes equal tensors have equal bytes.
void clear_padding_nibble(Tensor& t) {
  if (is_four_bit(t.dtype()) && t.element_count() % 2 == 1) {
    auto bytes = t.mutable_bytes();
    bytes.back() &= std::byte{0x0F};
  }
}

void check_bool_bytes(const Tensor& t, const std::string& what) {
  const auto bytes = t.bytes();
  for (std::size_t i = 0; i < bytes.size(); ++i)
    if (std::to_integer<unsigned>(bytes[i]) > 1)
      invalid_input(what + ": element " + std::to_string(i) + " is " +
                    std::to_string(std::to_integer<unsigned>(bytes[i])) + ", a BOOL must be 0 or 1");
}

template <class T>
void copy_field(const google::protobuf::RepeatedField<T>& field, Tensor& t) {
  if (field.size() > 0)
    std::memcpy(t.mutable_bytes().data(), field.data(), sizeof(T) * static_cast<std::size_t>(field.size()));
}

Tensor decode_typed(const onnx::TensorProto& p, DType dtype, const Shape& dims, const std::string& what) {
  const TypedField field = typed_field_for(dtype);
  if (field == TypedField::String) {
    std::vector<std::string> strings(p.string_data().begin(), p.string_data().end());
    return Tensor::from_strings(dims, std::move(strings));
  }
  Tensor t = Tensor::zeros(dtype, dims);
  switch (field) {
    case TypedField::Float: copy_field(p.float_data(), t); break;
    case TypedField::Double: copy_field(p.double_data(), t); break;
    case TypedField::Int64: copy_field(p.int64_data(), t); break;
    case TypedField::UInt64:
      if (dtype == DType::UInt64) {
        copy_field(p.uint64_data(), t);
      } else {
        auto* out = t.mutable_data<std::uint32_t>();
        for (int i = 0; i < p.uint64_data_size(); ++i) {
          const std::uint64_t v = p.uint64_data(i);
          if (v > UINT32_MAX)
            invalid_input(what + ": uint64_data[" + std::to_string(i) + "] = " + std::to_string(v) +
                          " does not fit UINT32");
          out[i] = static_cast<std::uint32_t>(v);
        }
      }
      break;
    case TypedField::Int32: {
      const IntRange range = int32_entry_range(dtype);
      const std::uint32_t width = is_four_bit(dtype) ? 1 : dtype_info(dtype).bits / 8;
      std::byte* out = t.mutable_bytes().data();
      for (int i = 0; i < p.int32_data_size(); ++i) {
        const std::int32_t v = p.int32_data(i);
        if (v < range.min || v > range.max)
          invalid_input(what + ": int32_data[" + std::to_string(i) + "] = " + std::to_string(v) + " is outside [" +
                        std::to_string(range.min) + ", " + std::to_string(range.max) + "]");
        // Little-endian: the low `width` bytes of the value are the element.
        std::memcpy(out + static_cast<std::size_t>(i) * width, &v, width);
      }
      break;
    }
    case TypedField::String: break;
  }
  return t;
}

}  // namespace

NamedTensor tensor_from_proto(const onnx::TensorProto& p, const std::string& where) {
  const std::string tensor_label = where + (p.name().empty() ? "" : ": tensor '" + p.name() + "'");
  if (p.has_segment())
    fail(ErrorKind::Unsupported, tensor_label + ": segmented TensorProto (segment field) is not supported");
  if (p.data_location() == onnx::TensorProto::EXTERNAL || p.external_data_size() > 0)
    fail(ErrorKind::Unsupported, tensor_label + ": external data (data_location = EXTERNAL) is not supported");
  if (!p.has_data_type() || p.data_type() == 0) invalid_input(tensor_label + ": data_type is UNDEFINED");
  const DTypeInfo* info = find_dtype(p.data_type());
  if (!info) invalid_input(tensor_label + ": unknown data_type " + std::to_string(p.data_type()));
  const DType dtype = info->dtype;

  Shape dims(p.dims().begin(), p.dims().end());
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (dims[i] < 0)
      invalid_input(tensor_label + ": dims[" + std::to_string(i) + "] is " + std::to_string(dims[i]) +
                    ", expected >= 0");
  std::uint64_t count = 1;
  for (std::int64_t d : dims) {
    auto next = checked_mul(count, static_cast<std::uint64_t>(d));
    if (!next || *next > static_cast<std::uint64_t>(INT64_MAX))
      invalid_input(tensor_label + ": element count of dims overflows");
    count = *next;
  }
  const std::string what = describe(where, p, dtype, dims);

  // A tensor uses raw_data or its one typed field, never both, never another type's field.
  const TypedField own = typed_field_for(dtype);
  for (TypedField f : {TypedField::Float, TypedField::Double, TypedField::Int32, TypedField::Int64, TypedField::UInt64,
                       TypedField::String}) {
    if (f != own && field_size(p, f) > 0)
      invalid_input(what + " has " + field_name(f) + " entries; this type's elements belong in " + field_name(own) +
                    (dtype == DType::String ? "" : " or raw_data"));
  }
  const bool has_raw = p.has_raw_data();
  if (has_raw && field_size(p, own) > 0) invalid_input(what + " has both raw_data and " + field_name(own));

  Tensor tensor;
  if (has_raw) {
    if (dtype == DType::String) invalid_input(what + " uses raw_data; STRING tensors must use string_data");
    const std::uint64_t elem_bits = info->bits;
    std::uint64_t need;
    if (elem_bits == 4) {
      need = (count + 1) / 2;
    } else {
      auto bytes = checked_mul(count, elem_bits / 8);
      if (!bytes) invalid_input(what + ": byte size overflows");
      need = *bytes;
    }
    const std::string& raw = p.raw_data();
    if (raw.size() != need)
      invalid_input(what + " needs " + std::to_string(need) + " bytes of raw_data, has " + std::to_string(raw.size()));
    tensor = Tensor::from_bytes(dtype, dims, std::as_bytes(std::span(raw.data(), raw.size())));
  } else {
    const std::uint64_t need = typed_entries(dtype, count);
    const auto have = static_cast<std::uint64_t>(field_size(p, own));
    if (have != need) {
      if (have == 0)
        invalid_input(what + " has no data: needs " + std::to_string(need) + " " + field_name(own) +
                      " entries or raw_data");
      invalid_input(what + " needs " + std::to_string(need) + " " + field_name(own) + " entries, has " +
                    std::to_string(have));
    }
    tensor = decode_typed(p, dtype, dims, what);
  }
  if (dtype == DType::Bool) check_bool_bytes(tensor, what);
  clear_padding_nibble(tensor);
  return {p.name(), std::move(tensor)};
}

void tensor_to_proto(const Tensor& t, const std::string& name, TensorProtoEncoding encoding, onnx::TensorProto* out) {
  out->Clear();
  out->set_name(name);
  out->set_data_type(static_cast<std::int32_t>(t.dtype()));
  for (std::int64_t d : t.shape()) out->add_dims(d);
  if (t.dtype() == DType::String) {
    for (const std::string& s : t.strings()) out->add_string_data(s);
    return;
  }
  const auto bytes = t.bytes();
  if (encoding == TensorProtoEncoding::RawData) {
    out->set_raw_data(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    return;
  }
  const DType dtype = t.dtype();
  auto read = [&](auto tag, std::size_t i) {
    decltype(tag) v;
    std::memcpy(&v, bytes.data() + i * sizeof v, sizeof v);
    return v;
  };
  switch (typed_field_for(dtype)) {
    case TypedField::Float:
      for (std::size_t i = 0; i < bytes.size() / 4; ++i) out->add_float_data(read(float{}, i));
      break;
    case TypedField::Double:
      for (std::size_t i = 0; i < bytes.size() / 8; ++i) out->add_double_data(read(double{}, i));
      break;
    case TypedField::Int64:
      for (std::size_t i = 0; i < bytes.size() / 8; ++i) out->add_int64_data(read(std::int64_t{}, i));
      break;
    case TypedField::UInt64:
      if (dtype == DType::UInt64)
        for (std::size_t i = 0; i < bytes.size() / 8; ++i) out->add_uint64_data(read(std::uint64_t{}, i));
      else
        for (std::size_t i = 0; i < bytes.size() / 4; ++i) out->add_uint64_data(read(std::uint32_t{}, i));
      break;
    case TypedField::Int32: {
      const std::uint32_t width = is_four_bit(dtype) ? 1 : dtype_info(dtype).bits / 8;
      const bool is_signed = dtype == DType::Int8 || dtype == DType::Int16 || dtype == DType::Int32;
      for (std::size_t i = 0; i < bytes.size() / width; ++i) {
        std::int32_t v = 0;
        if (width == 1)
          v = is_signed ? read(std::int8_t{}, i) : read(std::uint8_t{}, i);
        else if (width == 2)
          v = is_signed ? read(std::int16_t{}, i) : read(std::uint16_t{}, i);
        else
          v = read(std::int32_t{}, i);
        out->add_int32_data(v);
      }
      break;
    }
    case TypedField::String: break;
  }
}

}  // namespace onnxq::detail

namespace onnxq {

NamedTensor decode_tensor_proto(std::span<const std::byte> bytes, const std::string& source) {
  onnx::TensorProto proto;
  if (!detail::parse_message(bytes, &proto)) invalid_input(source + ": not a valid serialized TensorProto");
  return detail::tensor_from_proto(proto, source);
}

NamedTensor read_tensor_proto_file(const std::string& path) {
  auto file = MappedFile::open(path);
  return decode_tensor_proto(file->bytes(), path);
}

Tensor read_tensor_file(const std::string& path) {
  note_input_file(path);
  if (path.ends_with(".pb")) return read_tensor_proto_file(path).tensor;
  return read_npy_file(path);
}

std::string encode_tensor_proto(const Tensor& tensor, const std::string& name, TensorProtoEncoding encoding) {
  onnx::TensorProto proto;
  detail::tensor_to_proto(tensor, name, encoding, &proto);
  std::string out;
  if (!proto.SerializeToString(&out)) invalid_input("cannot serialize tensor '" + name + "' (larger than 2 GiB?)");
  return out;
}

}  // namespace onnxq
