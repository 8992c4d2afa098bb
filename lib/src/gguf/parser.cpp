// GGUF parsing and validation of one file: header, metadata, tensor infos, the data layout.
// Nothing from the file is trusted: each count and length is checked against the bytes that
// remain before it is used, and size arithmetic is overflow-checked. Each problem is written
// once, with both its messages: GgufFile::open's (the first problem is the error) and
// `onnxq check`'s (every problem is a finding).
#include "parser.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <unordered_set>

#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"

namespace onnxq {

using gguf_detail::ByteReader;
using gguf_detail::ParseListener;
using gguf_detail::Problem;
using gguf_detail::Truncated;

namespace {

constexpr std::uint32_t kMagicLE = 0x46554747;  // "GGUF" read as a little-endian u32
constexpr std::uint32_t kMagicBE = 0x47475546;  // "FUGG": the magic written as a big-endian u32
constexpr const char* kNothingAfter = "; nothing after this point can be checked";

std::string str(std::uint64_t v) { return std::to_string(v); }

std::string quoted(std::string_view s) {
  std::string out = "'";
  for (char c : s) out += (static_cast<unsigned char>(c) < 0x20) ? '?' : c;
  return out + "'";
}

bool valid_value_type(std::uint32_t t) { return t <= static_cast<std::uint32_t>(GgufType::Float64); }

// GgufFile::open's listener: the first problem is the error.
class StopAtFirstProblem final : public ParseListener {
 public:
  explicit StopAtFirstProblem(std::string_view file) : file_(file) {}
  void problem(const Problem& p) override {
    invalid_input(std::string(file_) + ": " + (p.reason_has_offset ? "offset " + str(p.offset) + ": " : "") + p.reason);
  }

 private:
  std::string_view file_;
};

// Thrown after a fatal problem was reported and the listener went on: the parse ends there.
struct StopParse {};

}  // namespace

GgufParser::GgufParser(ByteReader& reader, ParseListener& listener, GgufShard* shard)
    : reader_(reader), listener_(listener), records_(listener.wants_records()), shard_(shard) {}

void GgufParser::problem(Problem p) {
  if (p.key.empty()) p.key = key_;
  listener_.problem(p);
}

void GgufParser::fatal(Problem p) {
  p.fatal = true;
  problem(std::move(p));
  throw StopParse{};
}

void GgufParser::truncated(const Truncated& t) {
  const std::string what(t.what);
  if (t.kind == Truncated::LengthPastEnd) {
    const std::string reason =
        what + " length " + str(t.need) + " exceeds the " + str(t.left) + " bytes left in the file";
    fatal({"truncated", t.offset, reason, reason + kNothingAfter});
  }
  fatal({"truncated", t.offset,
         "truncated " + what + ": needs " + str(t.need) + " bytes, " + str(t.left) + " left in the file",
         "the file ends inside the " + what + (t.kind == Truncated::LengthField ? " length" : "") + " (" + str(t.need) +
             " bytes needed, " + str(t.left) + " left)" + kNothingAfter});
}

GgufValue GgufParser::read_value(ByteReader& reader, GgufType type, int depth) {
  StopAtFirstProblem first(reader.file_name());
  GgufParser parser(reader, first, nullptr);
  try {
    return parser.value(type, depth);
  } catch (const Truncated& t) {
    parser.truncated(t);
  }
}

GgufValue GgufParser::value(GgufType type, int depth) {
  GgufValue v;
  v.type_ = type;
  v.big_endian_ = reader_.big_endian();
  const std::uint64_t at = reader_.offset();
  switch (type) {
    case GgufType::String:
      v.text_ = reader_.read_string("string value");
      if (records_) listener_.string(at, v.text_, element_);
      return v;
    case GgufType::Array: break;
    default: {
      const std::uint64_t size = gguf_scalar_size(type);
      if (size == 0)
        fatal({"bad-value-type", at, "unknown metadata value type " + str(static_cast<std::uint32_t>(type)),
               "unknown metadata value type" + std::string(kNothingAfter)});
      if (size > reader_.remaining())
        fatal({"truncated", at,
               "truncated metadata value: needs " + str(size) + " bytes, " + str(reader_.remaining()) +
                   " left in the file",
               "the file ends inside a metadata value; nothing after it can be checked"});
      switch (size) {
        case 1: v.bits_ = reader_.read<std::uint8_t>("metadata value"); break;
        case 2: v.bits_ = reader_.read<std::uint16_t>("metadata value"); break;
        case 4: v.bits_ = reader_.read<std::uint32_t>("metadata value"); break;
        default: v.bits_ = reader_.read<std::uint64_t>("metadata value"); break;
      }
      return v;
    }
  }
  if (depth >= kGgufMaxArrayDepth)
    fatal({"array-too-deep", at, "arrays nested deeper than " + str(kGgufMaxArrayDepth) + " levels",
           "arrays nested deeper than " + str(kGgufMaxArrayDepth) + " levels (onnxq's reader rejects them)" +
               kNothingAfter});
  const auto elem = reader_.read<std::uint32_t>("array element type");
  const auto count = reader_.read<std::uint64_t>("array length");
  if (!valid_value_type(elem))
    fatal({"bad-value-type", at, "unknown array element type " + str(elem) + ", expected 0..12",
           "unknown array element type " + str(elem) + ", expected 0..12; nothing after it can be checked"});
  v.elem_type_ = static_cast<GgufType>(elem);
  v.count_ = count;
  v.array_begin_ = reader_.here();
  if (records_) listener_.array(at, v.elem_type_, count, depth);
  auto too_long = [&] {
    fatal({"truncated", at,
           "array of " + str(count) + " " + std::string(gguf_type_name(v.elem_type_)) + " values needs more than the " +
               str(reader_.remaining()) + " bytes left in the file",
           "array of " + str(count) + " elements needs more than the " + str(reader_.remaining()) +
               " bytes left in the file; nothing after it can be checked"});
  };
  const std::uint64_t begin = reader_.offset();
  const std::uint64_t size = gguf_scalar_size(v.elem_type_);
  if (size != 0) {
    const auto bytes = checked_mul(count, size);
    if (!bytes || *bytes > reader_.remaining()) too_long();
    reader_.skip(*bytes, "array");
  } else {
    // Each string takes at least its length and each array its header: refuse impossible counts before walking.
    const std::uint64_t min_size = v.elem_type_ == GgufType::String ? kGgufMinStringBytes : kGgufMinArrayBytes;
    if (count > reader_.remaining() / min_size) too_long();
    for (std::uint64_t i = 0; i < count; ++i) {
      if (depth == 0) element_ = i;
      value(v.elem_type_, depth + 1);
    }
  }
  v.array_bytes_ = reader_.offset() - begin;
  return v;
}

void GgufParser::header() {
  // Magic, version (its byte order tells the file's), counts.
  const auto magic = reader_.read<std::uint32_t>("magic");
  if (magic != kMagicLE && magic != kMagicBE) {
    char found[5] = {};
    std::memcpy(found, reader_.here() - 4, 4);
    for (char& c : found)
      if (c && (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7E)) c = '?';
    fatal({"bad-magic", 0, "bad magic '" + std::string(found) + "', expected 'GGUF' (not a GGUF file)",
           "the file does not start with the magic 'GGUF' (not a GGUF file)"});
  }
  if (records_) listener_.magic(magic == kMagicBE);
  const auto version_le = reader_.read<std::uint32_t>("version");
  const std::uint32_t version_be = gguf_detail::bswap(version_le);
  if (version_le == 2 || version_le == 3) {
    shard_->version = version_le;
  } else if (version_be == 2 || version_be == 3) {
    shard_->version = version_be;
    shard_->big_endian = true;
    reader_.set_big_endian(true);
  } else if (version_le == 1 || version_be == 1) {
    fatal({"bad-version", 4, "GGUF version 1 is not supported (it predates 64-bit counts); expected version 2 or 3",
           "GGUF version 1 is not supported; expected 2 or 3"});
  } else {
    fatal({"bad-version", 4, "unsupported GGUF version " + str(version_le) + ", expected 2 or 3",
           "unsupported GGUF version " + str(version_le) + ", expected 2 or 3"});
  }
  if (records_) listener_.version(shard_->big_endian);
  n_tensors_ = reader_.read<std::uint64_t>("tensor count");
  n_kv_ = reader_.read<std::uint64_t>("metadata count");
  if (n_kv_ > reader_.remaining() / kGgufMinKeyValueBytes) {
    const std::string reason =
        "metadata count " + str(n_kv_) + " is impossible: only " + str(reader_.remaining()) + " bytes left in the file";
    fatal({"impossible-count", 16, reason, reason + kNothingAfter});
  }
}

void GgufParser::metadata() {
  shard_->metadata.reserve(static_cast<std::size_t>(n_kv_));
  std::unordered_set<std::string_view> keys;
  keys.reserve(static_cast<std::size_t>(n_kv_));
  for (std::uint64_t i = 0; i < n_kv_; ++i) {
    const std::uint64_t at = reader_.offset();
    const std::string_view key = reader_.read_string("metadata key");
    if (key.empty())
      problem({"empty-key", at, "metadata key " + str(i) + " is empty, expected at least 1 byte",
               "empty metadata key (both readers reject it)"});
    if (records_) listener_.key(at, key);
    if (!keys.insert(key).second)
      problem({"duplicate-key", at, "duplicate metadata key " + quoted(key),
               "duplicate metadata key (both readers reject it)", key});
    const std::uint64_t type_at = reader_.offset();
    const auto type = reader_.read<std::uint32_t>("metadata value type");
    if (!valid_value_type(type))
      fatal({"bad-value-type", type_at,
             "key " + quoted(key) + " has unknown value type " + str(type) + ", expected 0..12",
             "unknown value type " + str(type) +
                 ", expected 0..12; its size is unknown, so nothing after it can be checked",
             key});
    key_ = key;
    element_ = 0;
    const GgufValue value = this->value(static_cast<GgufType>(type), 0);
    key_ = {};
    shard_->metadata.push_back({key, value, at});
    if (records_) listener_.key_value(shard_->metadata.back());
  }
}

// general.alignment: a u32 power of two, at most ggml's limit.
void GgufParser::alignment() {
  const std::string checking = "; checking with " + str(kGgufDefaultAlignment);
  for (const GgufKeyValue& kv : shard_->metadata) {
    if (kv.key != "general.alignment") continue;
    if (kv.value.type() != GgufType::UInt32)
      return problem({"alignment-type", kv.offset,
                      "general.alignment has type " + std::string(gguf_type_name(kv.value.type())) + ", expected u32",
                      "general.alignment must be a u32 (both readers reject other types)" + checking, kv.key});
    const std::uint64_t a = kv.value.raw_bits();
    if (a == 0 || !std::has_single_bit(a))
      return problem({"bad-alignment", kv.offset, "general.alignment is " + str(a) + ", expected a power of two",
                      "general.alignment is " + str(a) + ", expected a power of two" + checking, kv.key});
    if (a > kGgufMaxAlignment)
      problem({"alignment-too-large", kv.offset,
               "general.alignment is " + str(a) + ", more than ggml's limit of " + str(kGgufMaxAlignment),
               "general.alignment is " + str(a) + ": both readers refuse more than 1 MiB", kv.key});
    else if (records_)
      listener_.alignment(kv);
    shard_->alignment = a;
  }
}

void GgufParser::tensor_infos() {
  if (n_tensors_ > reader_.remaining() / kGgufMinTensorInfoBytes) {
    const std::string prefix =
        "tensor count " + str(n_tensors_) + " is impossible: only " + str(reader_.remaining()) + " bytes left";
    fatal({"impossible-count", 8, prefix + " in the file",
           prefix + " after the metadata (at " + str(reader_.offset()) + "); nothing after it can be checked"});
  }
  auto& tensors = shard_->tensors;
  tensors.reserve(static_cast<std::size_t>(n_tensors_));
  sized_.reserve(static_cast<std::size_t>(n_tensors_));
  std::unordered_set<std::string_view> names;
  names.reserve(static_cast<std::size_t>(n_tensors_));
  for (std::uint64_t i = 0; i < n_tensors_; ++i) {
    TensorInfo t{};
    const std::uint64_t at = t.info_offset = reader_.offset();
    t.name = reader_.read_string("tensor name");
    const std::string_view name = t.name;
    auto who = [&] { return "tensor " + quoted(name); };
    auto tensor_problem = [&](const char* code, std::uint64_t offset, std::string reason, std::string finding) {
      problem({code, offset, std::move(reason), std::move(finding), {}, name});
    };
    if (name.size() > kGgufMaxTensorNameBytes)
      tensor_problem("tensor-name-too-long", at,
                     "tensor " + str(i) + " name is " + str(name.size()) + " bytes long, more than ggml's limit of " +
                         str(kGgufMaxTensorNameBytes) + " (GGML_MAX_NAME 64 with its NUL)",
                     "tensor name of " + str(name.size()) + " bytes: both readers refuse " +
                         str(kGgufMaxTensorNameBytes + 1) + " or more (ggml's GGML_MAX_NAME)");
    if (records_) listener_.tensor_name(at, name);
    if (!names.insert(name).second)
      tensor_problem("duplicate-tensor", at, "duplicate tensor name " + quoted(name),
                     "duplicate tensor name (both readers reject it)");
    else if (records_)
      listener_.distinct_tensor_name(at, name);

    bool sized = true;  // its byte size can be computed
    const std::uint64_t dims_at = reader_.offset();
    const auto n_dims = reader_.read<std::uint32_t>("tensor n_dims");
    if (n_dims < 1 || n_dims > kGgufMaxDims) {
      tensor_problem("bad-n-dims", dims_at, who() + " has n_dims " + str(n_dims) + ", expected 1.." + str(kGgufMaxDims),
                     "n_dims " + str(n_dims) + ", expected 1.." + str(kGgufMaxDims) +
                         (n_dims == 0 ? " (onnxq's reader rejects 0; ggml reads it as a scalar)" : ""));
      sized = false;
      if (n_dims > reader_.remaining() / 8)
        throw Truncated{reader_.offset(), "tensor dimensions", std::uint64_t{n_dims} * 8, reader_.remaining()};
    }
    t.ne.resize(n_dims);
    for (std::uint32_t d = 0; d < n_dims; ++d) {
      const std::uint64_t dim_at = reader_.offset();
      t.ne[d] = reader_.read<std::uint64_t>("tensor dimension");
      if (t.ne[d] > static_cast<std::uint64_t>(INT64_MAX)) {
        const std::string value = std::to_string(static_cast<std::int64_t>(t.ne[d]));
        tensor_problem("negative-dimension", dim_at, who() + " has negative dimension " + value,
                       "dimension " + str(d) + " is " + value);
        sized = false;
      }
    }
    const std::uint64_t type_at = reader_.offset();
    const auto type = reader_.read<std::uint32_t>("tensor type");
    t.format = find_format_by_ggml_type(type);
    if (!t.format) {
      const std::string what =
          std::string(is_removed_ggml_type(type) ? "removed" : "unknown") + " ggml type " + str(type);
      tensor_problem("bad-tensor-type", type_at,
                     who() + " has " + what + ", expected one of the types `onnxq formats` lists", what);
      sized = false;
    }
    const std::uint64_t offset_at = reader_.offset();
    t.offset_in_data = reader_.read<std::uint64_t>("tensor data offset");
    if (sized) sized = tensor_size(t, dims_at);
    if (t.offset_in_data % shard_->alignment != 0) {
      const std::string what =
          "data offset " + str(t.offset_in_data) + " is not a multiple of the alignment " + str(shard_->alignment);
      tensor_problem("unaligned-offset", offset_at, who() + " " + what, what);
    }
    tensors.push_back(std::move(t));
    sized_.push_back(sized);
  }
}

// Element count and byte size (ne0/QK * block_bytes * ne1 * ne2 * ne3), every step checked;
// false when either is unknown or ne0 is not a whole number of blocks.
bool GgufParser::tensor_size(TensorInfo& t, std::uint64_t dims_at) {
  const BlockFormat& f = *t.format;
  auto tensor_problem = [&](const char* code, std::string reason, std::string finding) {
    problem({code, dims_at, "tensor " + quoted(t.name) + " " + reason, std::move(finding), {}, t.name});
  };
  bool whole_blocks = true;
  if (t.ne[0] % f.block_elements != 0) {
    tensor_problem("not-block-multiple",
                   "has ne0 = " + str(t.ne[0]) + ", expected a multiple of " + str(f.block_elements) + " for " +
                       std::string(f.gguf_name),
                   "ne0 = " + str(t.ne[0]) + " is not a multiple of " + str(f.block_elements) + " for " +
                       std::string(f.gguf_name));
    whole_blocks = false;
  }
  std::optional<std::uint64_t> count = 1;
  for (std::uint64_t d : t.ne)
    if (count) count = checked_mul(*count, d);
  if (!count || *count > kGgufMaxTensorElements) {
    tensor_problem("element-count-overflow", "element count overflows 64 bits", "the element count overflows 63 bits");
    return false;
  }
  t.element_count = *count;
  std::optional<std::uint64_t> size = checked_mul(t.ne[0] / f.block_elements, f.block_bytes);
  for (std::size_t d = 1; d < t.ne.size() && size; ++d) size = checked_mul(*size, t.ne[d]);
  if (!size || *size > kGgufMaxTensorBytes) {
    tensor_problem("byte-size-overflow", "byte size overflows 64 bits", "the byte size overflows 63 bits");
    return false;
  }
  t.byte_size = *size;
  return whole_blocks;
}

// The data section starts at the aligned end of the tensor infos; each tensor's data must lie in the file.
void GgufParser::data_layout() {
  const std::uint64_t infos_end = reader_.offset();
  const std::uint64_t file_size = reader_.file_size();
  const auto data = checked_align_up(infos_end, shard_->alignment);
  if (!data)
    return problem({"data-outside-file", infos_end, "data section offset overflows 64 bits",
                    "the data section offset overflows 64 bits"});
  shard_->data_offset = *data;
  auto& tensors = shard_->tensors;
  // As in ggml, a file with tensors holds the padding up to its data section, even when all are
  // empty; with no tensors the data section is empty and the file may end before it.
  if (!tensors.empty() && *data > file_size) {
    bool any_data = false;
    for (std::size_t i = 0; i < tensors.size(); ++i) any_data = any_data || (sized_[i] && tensors[i].byte_size > 0);
    const std::string what =
        "data section would start at " + str(*data) + ", past the end of the " + str(file_size) + "-byte file";
    return problem(
        {"data-outside-file", infos_end, what, "the " + what + (any_data ? "" : " (ggml's reader refuses it)")});
  }
  if (records_) listener_.data_start(infos_end, *data);
  bool all_placed = true;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    TensorInfo& t = tensors[i];
    if (!sized_[i]) {
      all_placed = false;
      continue;
    }
    const auto begin = checked_add(*data, t.offset_in_data);
    const auto end = begin ? checked_add(*begin, t.byte_size) : std::nullopt;
    // An empty tensor reads nothing, so only its offset arithmetic must hold.
    if (!end || (t.byte_size > 0 && *end > file_size)) {
      const std::string where = "data [" + str(t.offset_in_data) + ", +" + str(t.byte_size) +
                                ") relative to the data section at " + str(*data) + " lies outside the " +
                                str(file_size) + "-byte file";
      Problem p{"data-outside-file", t.info_offset, "tensor " + quoted(t.name) + " " + where, where, {}, t.name};
      p.reason_has_offset = false;
      problem(std::move(p));
      all_placed = false;
      continue;
    }
    t.file_offset = *begin;
  }
  if (all_placed && records_) listener_.tensors_placed(*shard_);
}

void GgufParser::run() {
  try {
    header();
    metadata();
    alignment();
    tensor_infos();
  } catch (const Truncated& t) {
    truncated(t);
  }
  data_layout();
}

GgufShard GgufParser::parse(std::span<const std::byte> bytes, const std::string& name, std::uint64_t file_size) {
  GgufShard shard;
  shard.path = name;
  shard.bytes = bytes;
  shard.size = file_size;
  ByteReader reader(bytes, name, file_size);
  StopAtFirstProblem first(name);
  GgufParser(reader, first, &shard).run();
  return shard;
}

bool GgufParser::parse(std::span<const std::byte> bytes, const std::string& name, ParseListener& listener,
                       GgufShard& shard) {
  shard.path = name;
  shard.bytes = bytes;
  shard.size = bytes.size();
  ByteReader reader(bytes, name, bytes.size());
  try {
    GgufParser(reader, listener, &shard).run();
  } catch (const StopParse&) {
    return false;
  }
  return true;
}

}  // namespace onnxq
