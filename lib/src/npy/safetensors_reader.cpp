#include "onnxq/npy/safetensors_reader.hpp"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>
#include <utility>

#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/io/open_source.hpp"

namespace onnxq {
namespace {

using Json = nlohmann::ordered_json;

// The safetensors dtypes GGUF has a type for (its plain types); the rest are named in the refusal.
bool safetensors_gguf_dtype(const std::string& name, DType& dtype) {
  static constexpr std::pair<std::string_view, DType> kNames[] = {
      {"F32", DType::Float}, {"F16", DType::Float16}, {"BF16", DType::BFloat16}, {"F64", DType::Double},
      {"I8", DType::Int8},   {"I16", DType::Int16},   {"I32", DType::Int32},     {"I64", DType::Int64},
  };
  for (const auto& [n, d] : kNames) {
    if (name == n) {
      dtype = d;
      return true;
    }
  }
  return false;
}

std::uint64_t read_le64(const ByteSource& source, std::uint64_t offset) {
  std::byte b[8];
  source.read(offset, b, offset + 8);
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<std::uint64_t>(b[i]);
  return v;
}

Json parse_json_text(const std::string& text, const std::string& where) {
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {
    invalid_input(where + ": the header is not valid JSON (" + std::string(e.what()) + ")");
  }
}

std::uint64_t json_size(const Json& v, const std::string& where) {
  if (!v.is_number_unsigned()) invalid_input(where + " must be a non-negative integer");
  return v.get<std::uint64_t>();
}

}  // namespace

std::vector<std::uint64_t> SafetensorsTensorInfo::gguf_ne() const {
  if (shape.empty()) return {1};
  return {shape.rbegin(), shape.rend()};
}

void SafetensorsModel::add_file(std::shared_ptr<const ByteSource> source, const std::string& path, bool keep_metadata) {
  const std::uint64_t size = source->size();
  if (size < 8)
    invalid_input(path + ": " + std::to_string(size) +
                  " bytes; a safetensors file starts with an 8-byte header length");
  const std::uint64_t header_bytes = read_le64(*source, 0);
  if (header_bytes > kSafetensorsMaxHeaderBytes || header_bytes > size - 8)
    invalid_input(path + ": offset 0: the header length " + std::to_string(header_bytes) + " is past the file's " +
                  std::to_string(size) + " bytes (or past the limit of " + std::to_string(kSafetensorsMaxHeaderBytes) +
                  ")");
  std::string text(header_bytes, '\0');
  source->read(8, std::as_writable_bytes(std::span<char>(text)), 8 + header_bytes);
  const Json header = parse_json_text(text, path);
  if (!header.is_object()) invalid_input(path + ": the header must be a JSON object");
  const std::uint64_t data_start = 8 + header_bytes, data_bytes = size - data_start;
  const std::size_t file_index = files_.size();
  files_.push_back({path, source});

  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;  // [begin, end) in the data, with the tensor index
  std::vector<std::size_t> span_tensor;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      if (!entry.is_object()) invalid_input(path + ": __metadata__ must be an object of strings");
      for (const auto& [key, value] : entry.items()) {
        if (!value.is_string()) invalid_input(path + ": __metadata__." + key + " must be a string");
        if (keep_metadata) metadata_.emplace_back(key, value.get<std::string>());
      }
      continue;
    }
    const std::string where = path + ": tensor '" + name + "'";
    if (!entry.is_object()) invalid_input(where + ": its entry must be an object");
    const auto dtype_it = entry.find("dtype");
    const auto shape_it = entry.find("shape");
    const auto offsets_it = entry.find("data_offsets");
    if (dtype_it == entry.end() || !dtype_it->is_string()) invalid_input(where + ": dtype must be a string");
    if (shape_it == entry.end() || !shape_it->is_array()) invalid_input(where + ": shape must be an array");
    if (offsets_it == entry.end() || !offsets_it->is_array() || offsets_it->size() != 2)
      invalid_input(where + ": data_offsets must be an array [begin, end]");
    SafetensorsTensorInfo t;
    t.name = name;
    const std::string dtype_name = dtype_it->get<std::string>();
    if (!safetensors_gguf_dtype(dtype_name, t.dtype))
      fail(ErrorKind::Unsupported,
           where + ": dtype " + dtype_name + " has no GGUF type (F32, F16, BF16, F64, I8, I16, I32 and I64 have)");
    std::uint64_t elements = 1;
    for (const Json& d : *shape_it) {
      t.shape.push_back(json_size(d, where + ": each shape entry"));
      const auto product = checked_mul(elements, t.shape.back());
      if (!product) invalid_input(where + ": the shape's element count overflows 64 bits");
      elements = *product;
    }
    const std::uint64_t begin = json_size((*offsets_it)[0], where + ": data_offsets[0]");
    const std::uint64_t end = json_size((*offsets_it)[1], where + ": data_offsets[1]");
    if (begin > end || end > data_bytes)
      invalid_input(where + ": data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                    "] are not inside the " + std::to_string(data_bytes) + " bytes of data");
    const auto expected = checked_mul(elements, dtype_info(t.dtype).bits / 8);
    if (!expected || *expected != end - begin)
      invalid_input(where + ": data_offsets span " + std::to_string(end - begin) + " bytes, but its shape of " +
                    dtype_name + " needs " + (expected ? std::to_string(*expected) : std::string("more than 2^64")));
    t.file = file_index;
    t.file_offset = data_start + begin;
    t.byte_size = end - begin;
    t.element_count = elements;
    spans.emplace_back(begin, end);
    span_tensor.push_back(tensors_.size());
    tensors_.push_back(std::move(t));
  }
  // No two tensors may share a byte (an empty tensor shares none).
  std::vector<std::size_t> order(spans.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return spans[a] < spans[b]; });
  std::uint64_t reached = 0;
  std::size_t last = 0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const auto [begin, end] = spans[order[k]];
    if (begin == end) continue;
    if (begin < reached)
      invalid_input(path + ": tensor '" + tensors_[span_tensor[order[k]]].name + "' overlaps tensor '" +
                    tensors_[span_tensor[last]].name + "' (data_offsets " + std::to_string(begin) + " < " +
                    std::to_string(reached) + ")");
    reached = end;
    last = order[k];
  }
}

SafetensorsModel SafetensorsModel::open(const std::string& path, const IoOptions& options) {
  SafetensorsModel model;
  if (!path.ends_with(".json")) {
    model.add_file(open_source(path, options), path, true);
    return model;
  }
  // An index: {"metadata": {...}, "weight_map": {"tensor": "shard file", ...}}.
  std::shared_ptr<const ByteSource> source = open_source(path, options);
  if (source->size() > kSafetensorsMaxHeaderBytes) invalid_input(path + ": an index of more than 100 MB");
  std::string text(source->size(), '\0');
  source->read(0, std::as_writable_bytes(std::span<char>(text)), text.size());
  const Json index = parse_json_text(text, path);
  const auto map_it = index.is_object() ? index.find("weight_map") : index.end();
  if (map_it == index.end() || !map_it->is_object())
    invalid_input(path + ": an index needs a \"weight_map\" object (tensor name to shard file)");
  std::vector<std::string> shard_names;
  for (const auto& [name, file] : map_it->items()) {
    if (!file.is_string()) invalid_input(path + ": weight_map." + name + " must be a file name");
    const std::string shard = file.get<std::string>();
    if (shard.empty() || shard.find('/') != std::string::npos || shard == "." || shard == "..")
      invalid_input(path + ": weight_map." + name + ": '" + shard + "' is not a file name beside the index");
    if (std::find(shard_names.begin(), shard_names.end(), shard) == shard_names.end()) shard_names.push_back(shard);
  }
  if (shard_names.empty()) invalid_input(path + ": the weight_map names no tensor");
  const std::string folder = std::filesystem::path(path).parent_path().string();
  for (const std::string& shard : shard_names) {
    const std::string file = folder.empty() ? shard : folder + "/" + shard;
    model.add_file(open_source(file, options), file, model.files_.empty());
  }
  // The index and the shards must agree: each listed tensor in its file, each tensor listed once.
  std::set<std::string> seen;
  for (const SafetensorsTensorInfo& t : model.tensors_) {
    if (!seen.insert(t.name).second) invalid_input(path + ": tensor '" + t.name + "' is in more than one shard");
    const auto listed = map_it->find(t.name);
    const std::string& file = model.files_[t.file].path;
    if (listed == map_it->end() || folder + (folder.empty() ? "" : "/") + listed->get<std::string>() != file)
      invalid_input(path + ": tensor '" + t.name + "' is in " + file + ", but the weight_map does not say so");
  }
  for (const auto& [name, file] : map_it->items())
    if (!seen.contains(name))
      invalid_input(path + ": weight_map lists tensor '" + name + "', which " + file.get<std::string>() + " lacks");
  return model;
}

SafetensorsModel SafetensorsModel::from_source(std::shared_ptr<const ByteSource> source) {
  SafetensorsModel model;
  const std::string name = source->name();
  model.add_file(std::move(source), name, true);
  return model;
}

void SafetensorsModel::read(const SafetensorsTensorInfo& tensor, std::uint64_t offset, std::span<std::byte> dst) const {
  if (offset > tensor.byte_size || dst.size() > tensor.byte_size - offset)
    invalid_argument("safetensors tensor '" + tensor.name + "': bytes [" + std::to_string(offset) + ", +" +
                     std::to_string(dst.size()) + ") are outside its " + std::to_string(tensor.byte_size));
  if (dst.empty()) return;
  const ByteSource& source = *files_.at(tensor.file).source;
  source.read(tensor.file_offset + offset, dst, tensor.file_offset + tensor.byte_size);
  source.check();
}

}  // namespace onnxq
