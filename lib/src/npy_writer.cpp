#include "onnxq/npy_writer.hpp"

#include <cstdint>

#include "onnxq/error.hpp"

namespace onnxq {

std::string npy_header(DType dtype, const Shape& shape) {
  const DTypeInfo& info = dtype_info(dtype);
  if (info.npy_descr.empty())
    fail(ErrorKind::Unsupported, "dtype " + std::string(info.onnx_name) + " has no .npy representation");
  shape_element_count(shape);  // rejects negative dims and overflow
  // numpy's own spelling: "()", "(3,)", "(2, 3)".
  std::string dims;
  for (std::size_t i = 0; i < shape.size(); ++i) dims += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) dims += ",";
  std::string dict = "{'descr': '" + std::string(info.npy_descr) + "', 'fortran_order': False, 'shape': (" + dims + ")";
  dict += ", }";
  // Version 1.0 stores the header length in 2 bytes; longer headers need 2.0 (4 bytes).
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

std::string npy_bytes(const Tensor& tensor) {
  std::string out = npy_header(tensor.dtype(), tensor.shape());
  const auto bytes = tensor.bytes();
  out.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return out;
}

}  // namespace onnxq
