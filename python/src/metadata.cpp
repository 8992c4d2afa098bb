#include "metadata.hpp"

#include <cstring>

#include "arrays.hpp"

namespace onnxq::python {
namespace {

py::str text(std::string_view s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape");
  if (!o) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

// The element dtype of a fixed-size GGUF type ("u8", "f32", "bool" ... in the dtype table).
DType element_dtype(GgufType type) { return parse_dtype_name(gguf_type_name(type)).value_or(DType::Undefined); }

py::object array_value(const GgufArray& array) {
  const GgufType type = array.element_type();
  if (type == GgufType::String || type == GgufType::Array) {
    py::list items;
    array.for_each([&](const GgufValue& e) {
      items.append(metadata_value(e));
      return true;
    });
    return items;
  }
  const DType dtype = element_dtype(type);
  py::array out = empty_array(dtype, {static_cast<std::int64_t>(array.size())});
  auto* dst = static_cast<std::byte*>(out.mutable_data());
  const std::size_t width = dtype_info(dtype).bits / 8;
  array.for_each([&](const GgufValue& e) {
    // raw_bits holds the value in host order; its low `width` bytes are the element (little-endian host).
    const std::uint64_t bits = type == GgufType::Bool ? std::uint64_t{e.bool_byte() != 0} : e.raw_bits();
    std::memcpy(dst, &bits, width);
    dst += width;
    return true;
  });
  return out;
}

}  // namespace

py::object metadata_value(const GgufValue& value) {
  switch (value.type()) {
    case GgufType::String: return text(value.as_string());
    case GgufType::Array: return array_value(value.as_array());
    case GgufType::Bool: return py::bool_(value.as_bool());
    case GgufType::Float32: return py::float_(value.as_f32());
    case GgufType::Float64: return py::float_(value.as_f64());
    default: break;
  }
  if (dtype_info(element_dtype(value.type())).is_signed) return py::int_(value.as_i64());
  return py::int_(value.as_u64());
}

py::dict metadata_dict(const GgufModel& file) {
  py::dict out;
  for (const GgufKeyValue& kv : file.metadata()) out[text(kv.key)] = metadata_value(kv.value);
  return out;
}

}  // namespace onnxq::python
