#include "onnxq/npy/writer.hpp"

#include <algorithm>
#include <cstring>

#include "npy/unicode.hpp"
#include "onnxq/core/error.hpp"

namespace onnxq {
namespace {

// The longest string in code points; numpy's '<U0' would be unreadable by many tools, so at least 1.
std::size_t unicode_width(const Tensor& t) {
  std::size_t width = 1;
  for (const std::string& s : t.strings()) width = std::max(width, npy_detail::utf8_to_utf32(s).size());
  return width;
}

std::string shape_tuple(const Shape& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) s += ",";
  return s + ")";
}

// Magic, version, header length and the dict, padded with spaces and a newline so that the data
// starts at a multiple of 64 bytes. Version 1.0 stores the length in 2 bytes; longer headers need 2.0.
std::string preamble_and_dict(std::string dict) {
  const std::size_t v1_total = 10 + dict.size() + 1;
  const bool v2 = ((v1_total + 63) / 64) * 64 - 10 > 0xFFFF;
  const std::size_t prefix = v2 ? 12 : 10;
  const std::size_t total = ((prefix + dict.size() + 1 + 63) / 64) * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  const std::size_t len = dict.size();
  std::string out = "\x93NUMPY";
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  const int len_bytes = v2 ? 4 : 2;
  for (int i = 0; i < len_bytes; ++i) out += static_cast<char>((len >> (8 * i)) & 0xFF);
  return out + dict;
}

}  // namespace

std::string npy_header(DType dtype, const Shape& shape) {
  const DTypeInfo& info = dtype_info(dtype);
  if (info.npy_descr.empty())
    fail(ErrorKind::Unsupported, "dtype " + std::string(info.onnx_name) + " has no .npy representation");
  shape_element_count(shape);  // rejects negative dims and overflow
  return preamble_and_dict("{'descr': '" + std::string(info.npy_descr) +
                           "', 'fortran_order': False, 'shape': " + shape_tuple(shape) + ", }");
}

std::string npy_bytes(const Tensor& tensor) {
  std::string out = npy_header(tensor.dtype(), tensor.shape());
  const auto bytes = tensor.bytes();
  out.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return out;
}

std::string npy_tensor_header(const Tensor& t) {
  if (!t.is_string()) return npy_header(t.dtype(), t.shape());
  return preamble_and_dict("{'descr': '<U" + std::to_string(unicode_width(t)) +
                           "', 'fortran_order': False, 'shape': " + shape_tuple(t.shape()) + ", }");
}

void write_npy_tensor(const Tensor& t, const std::function<void(const void*, std::size_t)>& write) {
  const std::string header = npy_tensor_header(t);
  write(header.data(), header.size());
  if (!t.is_string()) {
    const auto bytes = t.bytes();
    if (!bytes.empty()) write(bytes.data(), bytes.size());
    return;
  }
  const std::size_t width = unicode_width(t);
  std::vector<unsigned char> chunk;
  for (const std::string& s : t.strings()) {
    const std::u32string u = npy_detail::utf8_to_utf32(s);
    for (std::size_t k = 0; k < width; ++k) {
      const std::uint32_t c = k < u.size() ? static_cast<std::uint32_t>(u[k]) : 0;
      for (int b = 0; b < 4; ++b) chunk.push_back(static_cast<unsigned char>((c >> (8 * b)) & 0xFF));
    }
    if (chunk.size() >= (1u << 16)) {
      write(chunk.data(), chunk.size());
      chunk.clear();
    }
  }
  if (!chunk.empty()) write(chunk.data(), chunk.size());
}

std::vector<std::byte> encode_npy_tensor(const Tensor& t) {
  std::vector<std::byte> out;
  write_npy_tensor(t, [&](const void* data, std::size_t size) {
    const auto* p = static_cast<const std::byte*>(data);
    out.insert(out.end(), p, p + size);
  });
  return out;
}

}  // namespace onnxq
