// GGUF parsing and validation of one file: header, metadata, tensor infos.
// Nothing from the file is trusted: each count and length is checked against the
// bytes that remain before it is used, and size arithmetic is overflow-checked.
#include "parser.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <unordered_set>

#include "onnxq/core/checked.hpp"

namespace onnxq {

using gguf_detail::ByteReader;

namespace {

constexpr std::uint32_t kMagicLE = 0x46554747;                    // "GGUF" read as a little-endian u32
constexpr std::uint32_t kMagicBE = 0x47475546;                    // "FUGG": the magic written as a big-endian u32
constexpr std::uint64_t kMinKvBytes = 8 + 4 + 1;                  // empty key, type, smallest value
constexpr std::uint64_t kMinTensorInfoBytes = 8 + 4 + 8 + 4 + 8;  // empty name, n_dims, one dim, type, offset
constexpr std::uint32_t kMaxDims = 4;
// ggml's limits (src/gguf.cpp): a tensor name fits GGML_MAX_NAME = 64 bytes with its NUL, and
// general.alignment is at most 1 MiB.
constexpr std::size_t kMaxTensorNameBytes = 63;
constexpr std::uint64_t kMaxAlignment = std::uint64_t{1} << 20;

std::string str(std::uint64_t v) { return std::to_string(v); }

std::string quoted(std::string_view s) {
  std::string out = "'";
  for (char c : s) out += (static_cast<unsigned char>(c) < 0x20) ? '?' : c;
  return out + "'";
}

bool valid_value_type(std::uint32_t t) { return t <= static_cast<std::uint32_t>(GgufType::Float64); }

}  // namespace

GgufValue GgufParser::read_value(ByteReader& reader, GgufType type, int depth) {
  GgufValue v;
  v.type_ = type;
  v.big_endian_ = reader.big_endian();
  switch (type) {
    case GgufType::UInt8:
    case GgufType::Int8:
    case GgufType::Bool: v.bits_ = reader.read<std::uint8_t>("metadata value"); break;
    case GgufType::UInt16:
    case GgufType::Int16: v.bits_ = reader.read<std::uint16_t>("metadata value"); break;
    case GgufType::UInt32:
    case GgufType::Int32:
    case GgufType::Float32: v.bits_ = reader.read<std::uint32_t>("metadata value"); break;
    case GgufType::UInt64:
    case GgufType::Int64:
    case GgufType::Float64: v.bits_ = reader.read<std::uint64_t>("metadata value"); break;
    case GgufType::String: v.text_ = reader.read_string("string value"); break;
    case GgufType::Array: {
      const std::uint64_t at = reader.offset();
      if (depth >= kGgufMaxArrayDepth)
        reader.fail_at(at, "arrays nested deeper than " + str(kGgufMaxArrayDepth) + " levels");
      const auto elem = reader.read<std::uint32_t>("array element type");
      if (!valid_value_type(elem)) reader.fail_at(at, "unknown array element type " + str(elem) + ", expected 0..12");
      const auto count = reader.read<std::uint64_t>("array length");
      v.elem_type_ = static_cast<GgufType>(elem);
      v.count_ = count;
      v.array_begin_ = reader.here();
      const std::uint64_t begin = reader.offset();
      const std::uint64_t size = gguf_scalar_size(v.elem_type_);
      if (size != 0) {
        auto bytes = checked_mul(count, size);
        if (!bytes || *bytes > reader.remaining())
          reader.fail_at(at, "array of " + str(count) + " " + std::string(gguf_type_name(v.elem_type_)) +
                                 " values needs more than the " + str(reader.remaining()) + " bytes left in the file");
        reader.skip(*bytes, "array");
      } else {
        // Strings take at least 8 bytes each and arrays at least 12: reject impossible counts before walking.
        const std::uint64_t min_size = v.elem_type_ == GgufType::String ? 8 : 12;
        if (count > reader.remaining() / min_size)
          reader.fail_at(at, "array of " + str(count) + " " + std::string(gguf_type_name(v.elem_type_)) +
                                 " values needs more than the " + str(reader.remaining()) + " bytes left in the file");
        for (std::uint64_t i = 0; i < count; ++i) read_value(reader, v.elem_type_, depth + 1);
      }
      v.array_bytes_ = reader.offset() - begin;
      break;
    }
    default: reader.fail_at(reader.offset(), "unknown metadata value type " + str(static_cast<std::uint32_t>(type)));
  }
  return v;
}

GgufShard GgufParser::parse(std::span<const std::byte> bytes, const std::string& name, std::uint64_t file_size) {
  GgufShard shard;
  shard.path = name;
  shard.bytes = bytes;
  shard.size = file_size;
  ByteReader reader(bytes, name, file_size);

  // Header: magic, version (its byte order tells the file's), counts.
  const auto magic = reader.read<std::uint32_t>("magic");
  if (magic != kMagicLE && magic != kMagicBE) {
    char found[5] = {};
    std::memcpy(found, bytes.data(), 4);
    for (char& c : found)
      if (c && (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7E)) c = '?';
    reader.fail_at(0, "bad magic '" + std::string(found) + "', expected 'GGUF' (not a GGUF file)");
  }
  const auto version_le = reader.read<std::uint32_t>("version");
  const std::uint32_t version_be = gguf_detail::bswap(version_le);
  if (version_le == 2 || version_le == 3) {
    shard.version = version_le;
  } else if (version_be == 2 || version_be == 3) {
    shard.version = version_be;
    shard.big_endian = true;
    reader.set_big_endian(true);
  } else if (version_le == 1 || version_be == 1) {
    reader.fail_at(4, "GGUF version 1 is not supported (it predates 64-bit counts); expected version 2 or 3");
  } else {
    reader.fail_at(4, "unsupported GGUF version " + str(version_le) + ", expected 2 or 3");
  }
  const auto n_tensors = reader.read<std::uint64_t>("tensor count");
  const auto n_kv = reader.read<std::uint64_t>("metadata count");
  if (n_kv > reader.remaining() / kMinKvBytes)
    reader.fail_at(16, "metadata count " + str(n_kv) + " is impossible: only " + str(reader.remaining()) +
                           " bytes left in the file");

  // Metadata.
  shard.metadata.reserve(static_cast<std::size_t>(n_kv));
  std::unordered_set<std::string_view> keys;
  keys.reserve(static_cast<std::size_t>(n_kv));
  for (std::uint64_t i = 0; i < n_kv; ++i) {
    const std::uint64_t at = reader.offset();
    const std::string_view key = reader.read_string("metadata key");
    if (key.empty()) reader.fail_at(at, "metadata key " + str(i) + " is empty, expected at least 1 byte");
    const std::uint64_t type_at = reader.offset();
    const auto type = reader.read<std::uint32_t>("metadata value type");
    if (!valid_value_type(type))
      reader.fail_at(type_at, "key " + quoted(key) + " has unknown value type " + str(type) + ", expected 0..12");
    if (!keys.insert(key).second) reader.fail_at(at, "duplicate metadata key " + quoted(key));
    GgufValue value = read_value(reader, static_cast<GgufType>(type), 0);
    shard.metadata.push_back({key, value, at});
  }

  // general.alignment: a u32 power of two.
  for (const auto& kv : shard.metadata) {
    if (kv.key != "general.alignment") continue;
    if (kv.value.type() != GgufType::UInt32)
      reader.fail_at(kv.offset,
                     "general.alignment has type " + std::string(gguf_type_name(kv.value.type())) + ", expected u32");
    const std::uint64_t a = kv.value.raw_bits();
    if (a == 0 || !std::has_single_bit(a))
      reader.fail_at(kv.offset, "general.alignment is " + str(a) + ", expected a power of two");
    if (a > kMaxAlignment)
      reader.fail_at(kv.offset, "general.alignment is " + str(a) + ", more than ggml's limit of " + str(kMaxAlignment));
    shard.alignment = a;
  }

  // Tensor infos.
  if (n_tensors > reader.remaining() / kMinTensorInfoBytes)
    reader.fail_at(8, "tensor count " + str(n_tensors) + " is impossible: only " + str(reader.remaining()) +
                          " bytes left in the file");
  shard.tensors.reserve(static_cast<std::size_t>(n_tensors));
  std::unordered_set<std::string_view> names;
  names.reserve(static_cast<std::size_t>(n_tensors));
  for (std::uint64_t i = 0; i < n_tensors; ++i) {
    const std::uint64_t at = reader.offset();
    TensorInfo t{};
    t.name = reader.read_string("tensor name");
    const std::string who = "tensor " + quoted(t.name);
    if (t.name.size() > kMaxTensorNameBytes)
      reader.fail_at(at, "tensor " + str(i) + " name is " + str(t.name.size()) +
                             " bytes long, more than ggml's limit of " + str(kMaxTensorNameBytes) +
                             " (GGML_MAX_NAME 64 with its NUL)");
    if (!names.insert(t.name).second) reader.fail_at(at, "duplicate tensor name " + quoted(t.name));
    const std::uint64_t dims_at = reader.offset();
    const auto n_dims = reader.read<std::uint32_t>("tensor n_dims");
    if (n_dims < 1 || n_dims > kMaxDims)
      reader.fail_at(dims_at, who + " has n_dims " + str(n_dims) + ", expected 1.." + str(kMaxDims));
    t.ne.resize(n_dims);
    for (std::uint32_t d = 0; d < n_dims; ++d) {
      const std::uint64_t dim_at = reader.offset();
      t.ne[d] = reader.read<std::uint64_t>("tensor dimension");
      if (t.ne[d] > static_cast<std::uint64_t>(INT64_MAX))
        reader.fail_at(dim_at, who + " has negative dimension " + std::to_string(static_cast<std::int64_t>(t.ne[d])));
    }
    const std::uint64_t type_at = reader.offset();
    const auto type = reader.read<std::uint32_t>("tensor type");
    t.format = find_format_by_ggml_type(type);
    if (!t.format) {
      reader.fail_at(type_at, who + " has " + (is_removed_ggml_type(type) ? "removed" : "unknown") + " ggml type " +
                                  str(type) + ", expected one of the types `onnxq formats` lists");
    }
    const std::uint64_t offset_at = reader.offset();
    t.offset_in_data = reader.read<std::uint64_t>("tensor data offset");

    if (t.ne[0] % t.format->block_elements != 0)
      reader.fail_at(dims_at, who + " has ne0 = " + str(t.ne[0]) + ", expected a multiple of " +
                                  str(t.format->block_elements) + " for " + std::string(t.format->gguf_name));
    std::optional<std::uint64_t> count = 1;
    for (std::uint64_t d : t.ne) {
      if (count) count = checked_mul(*count, d);
    }
    if (!count || *count > static_cast<std::uint64_t>(INT64_MAX))
      reader.fail_at(dims_at, who + " element count overflows 64 bits");
    t.element_count = *count;
    // Bytes = ne0/QK * block_bytes * ne1 * ne2 * ne3, every step checked.
    std::optional<std::uint64_t> size = checked_mul(t.ne[0] / t.format->block_elements, t.format->block_bytes);
    for (std::size_t d = 1; d < t.ne.size() && size; ++d) size = checked_mul(*size, t.ne[d]);
    if (!size || *size > static_cast<std::uint64_t>(INT64_MAX))
      reader.fail_at(dims_at, who + " byte size overflows 64 bits");
    t.byte_size = *size;
    if (t.offset_in_data % shard.alignment != 0)
      reader.fail_at(offset_at, who + " data offset " + str(t.offset_in_data) + " is not a multiple of the alignment " +
                                    str(shard.alignment));
    shard.tensors.push_back(std::move(t));
  }

  // The data section starts at the aligned end of the tensor infos.
  const std::uint64_t infos_end = reader.offset();
  auto data_offset = checked_align_up(infos_end, shard.alignment);
  if (!data_offset) reader.fail_at(infos_end, "data section offset overflows 64 bits");
  shard.data_offset = *data_offset;
  // As in ggml, a file with tensors holds the padding up to its data section, even when all are empty.
  if (!shard.tensors.empty() && shard.data_offset > file_size)
    reader.fail_at(infos_end, "data section would start at " + str(shard.data_offset) + ", past the end of the " +
                                  str(file_size) + "-byte file");
  for (TensorInfo& t : shard.tensors) {
    auto begin = checked_add(shard.data_offset, t.offset_in_data);
    auto end = begin ? checked_add(*begin, t.byte_size) : std::nullopt;
    // An empty tensor reads nothing, so only its offset arithmetic must hold.
    if (!end || (t.byte_size > 0 && *end > file_size))
      invalid_input(name + ": tensor " + quoted(t.name) + " data [" + str(t.offset_in_data) + ", +" + str(t.byte_size) +
                    ") relative to the data section at " + str(shard.data_offset) + " lies outside the " +
                    str(file_size) + "-byte file");
    t.file_offset = *begin;
  }
  return shard;
}

}  // namespace onnxq
