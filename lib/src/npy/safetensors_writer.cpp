#include "onnxq/npy/safetensors_writer.hpp"

#include <nlohmann/json.hpp>

#include "onnxq/core/error.hpp"

namespace onnxq {

std::string_view safetensors_dtype(DType dtype) {
  switch (dtype) {
    case DType::Float: return "F32";
    case DType::Float16: return "F16";
    case DType::BFloat16: return "BF16";
    case DType::Double: return "F64";
    case DType::Int8: return "I8";
    case DType::Int16: return "I16";
    case DType::Int32: return "I32";
    case DType::Int64: return "I64";
    case DType::UInt8: return "U8";
    case DType::UInt16: return "U16";
    case DType::UInt32: return "U32";
    case DType::UInt64: return "U64";
    case DType::Bool: return "BOOL";
    default: fail(ErrorKind::Unsupported, "safetensors has no dtype for " + std::string(dtype_info(dtype).onnx_name));
  }
}

std::string safetensors_header(const std::vector<SafetensorsEntry>& entries,
                               const std::map<std::string, std::string>& metadata) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  for (const SafetensorsEntry& e : entries) {
    if (e.name == "__metadata__") invalid_input("a tensor named '__metadata__' cannot be stored in safetensors");
    header[e.name] = {{"dtype", safetensors_dtype(e.dtype)}, {"shape", e.shape}, {"data_offsets", {e.begin, e.end}}};
  }
  std::string json = header.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  // 8 + length must be a multiple of 8 so the data starts aligned.
  json.append((8 - json.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  const std::uint64_t n = json.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return out + json;
}

}  // namespace onnxq
