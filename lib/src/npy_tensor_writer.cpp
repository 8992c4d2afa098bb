#include "onnxq/npy_tensor_writer.hpp"

#include <algorithm>
#include <cstring>

#include "npy/unicode.hpp"
#include "onnxq/error.hpp"
#include "onnxq/npy_writer.hpp"

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

}  // namespace

std::string npy_tensor_header(const Tensor& t) {
  if (!t.is_string()) return npy_header(t.dtype(), t.shape());
  std::string dict = "{'descr': '<U" + std::to_string(unicode_width(t)) + "', 'fortran_order': False, 'shape': " +
                     shape_tuple(t.shape()) + ", }";
  const bool v2 = dict.size() + 1 + 10 > 65535;
  const std::size_t preamble = v2 ? 12 : 10;
  const std::size_t total = (preamble + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - preamble - dict.size() - 1, ' ');
  dict += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  const std::size_t len = dict.size();
  for (std::size_t i = 0; i < (v2 ? 4u : 2u); ++i) out += static_cast<char>((len >> (8 * i)) & 0xFF);
  return out + dict;
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
