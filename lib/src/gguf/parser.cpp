// GGUF parsing and validation of one file: header, metadata, tensor infos, the data layout.
// Nothing from the file is trusted: each count and length is checked against the bytes that
// remain before it is used, and size arithmetic is overflow-checked. Each problem is written
// once, with both its messages: GgufModel::open's (the first problem is the error) and
// `onnxq check`'s (every problem is a finding).
#include "parser.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <unordered_set>

#include "layout_variants.hpp"
#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/gguf/layout.hpp"
#include "onnxq/gguf/rules.hpp"

namespace onnxq {

using gguf_detail::ByteReader;
using gguf_detail::ParseListener;
using gguf_detail::Problem;
using gguf_detail::Truncated;

namespace {

constexpr const char* kNothingAfter = "; nothing after this point can be checked";
std::string value_types() { return "0.." + std::to_string(static_cast<std::uint32_t>(kGgufLastType)); }

std::string str(std::uint64_t v) { return std::to_string(v); }

std::string quoted(std::string_view s) { return gguf_quoted(s); }

// GgufModel::open's listener: the first problem is the error.
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

GgufParser::GgufParser(ByteReader& reader, ParseListener& listener, GgufFile* shard)
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
  if (!gguf_type_valid(elem))
    fatal({"bad-value-type", at, "unknown array element type " + str(elem) + ", expected " + value_types(),
           "unknown array element type " + str(elem) + ", expected " + value_types() +
               "; nothing after it can be checked"});
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
  if (magic != kGgufMagic && magic != kGgufMagicSwapped) {
    char found[5] = {};
    std::memcpy(found, reader_.here() - 4, 4);
    for (char& c : found)
      if (c && (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7E)) c = '?';
    fatal({"bad-magic", 0, "bad magic '" + std::string(found) + "', expected 'GGUF' (not a GGUF file)",
           "the file does not start with the magic 'GGUF' (not a GGUF file)"});
  }
  if (records_) listener_.magic(magic == kGgufMagicSwapped);
  const auto version_le = reader_.read<std::uint32_t>("version");
  const std::uint32_t version_be = gguf_detail::bswap(version_le);
  const std::string expected = str(kGgufMinVersion) + " or " + str(kGgufMaxVersion);
  if (gguf_version_supported(version_le)) {
    shard_->version = version_le;
  } else if (gguf_version_supported(version_be)) {
    shard_->version = version_be;
    shard_->big_endian = true;
    reader_.set_big_endian(true);
  } else if (version_le == 1 || version_be == 1) {
    fatal({"bad-version", kGgufVersionOffset,
           "GGUF version 1 is not supported (it predates 64-bit counts); expected version " + expected,
           "GGUF version 1 is not supported; expected " + expected});
  } else {
    fatal({"bad-version", kGgufVersionOffset, "unsupported GGUF version " + str(version_le) + ", expected " + expected,
           "unsupported GGUF version " + str(version_le) + ", expected " + expected});
  }
  if (records_) listener_.version(shard_->big_endian);
  n_tensors_ = reader_.read<std::uint64_t>("tensor count");
  n_kv_ = reader_.read<std::uint64_t>("metadata count");
  if (n_kv_ > reader_.remaining() / kGgufMinKeyValueBytes) {
    const std::string reason =
        "metadata count " + str(n_kv_) + " is impossible: only " + str(reader_.remaining()) + " bytes left in the file";
    fatal({"impossible-count", kGgufMetadataCountOffset, reason, reason + kNothingAfter});
  }
}

void GgufParser::metadata() {
  shard_->metadata.reserve(static_cast<std::size_t>(n_kv_));
  std::unordered_set<std::string_view> keys;
  keys.reserve(static_cast<std::size_t>(n_kv_));
  for (std::uint64_t i = 0; i < n_kv_; ++i) {
    const std::uint64_t at = reader_.offset();
    const std::string_view key = reader_.read_string("metadata key");
    if (auto empty = gguf_empty_key_rule(i, key))
      problem({empty->code.data(), at, std::move(empty->reason), "empty metadata key (both readers reject it)"});
    if (records_) listener_.key(at, key);
    if (!keys.insert(key).second)
      problem({"duplicate-key", at, "duplicate metadata key " + quoted(key),
               "duplicate metadata key (both readers reject it)", key});
    const std::uint64_t type_at = reader_.offset();
    const auto type = reader_.read<std::uint32_t>("metadata value type");
    if (!gguf_type_valid(type))
      fatal({"bad-value-type", type_at,
             "key " + quoted(key) + " has unknown value type " + str(type) + ", expected " + value_types(),
             "unknown value type " + str(type) + ", expected " + value_types() +
                 "; its size is unknown, so nothing after it can be checked",
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
    const std::uint64_t a = kv.value.raw_bits();
    auto broken = gguf_alignment_rule(kv.value.type(), a);
    if (broken && broken->code == "alignment-type")
      return problem({broken->code.data(), kv.offset, std::move(broken->reason),
                      "general.alignment must be a u32 (both readers reject other types)" + checking, kv.key});
    if (broken && broken->code == "bad-alignment")
      return problem({broken->code.data(), kv.offset, std::move(broken->reason),
                      "general.alignment is " + str(a) + ", expected a power of two" + checking, kv.key});
    if (broken)
      problem({broken->code.data(), kv.offset, std::move(broken->reason),
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
    fatal({"impossible-count", kGgufTensorCountOffset, prefix + " in the file",
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
    if (auto too_long = gguf_tensor_name_rule("tensor " + str(i), name))
      tensor_problem(too_long->code.data(), at, std::move(too_long->reason),
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
      if (n_dims > reader_.remaining() / kGgufDimBytes)
        throw Truncated{reader_.offset(), "tensor dimensions", std::uint64_t{n_dims} * kGgufDimBytes,
                        reader_.remaining()};
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
    t.ggml_type = type;
    t.format = find_format_by_ggml_type(type);
    // A removed type is an error; one onnxq has never heard of is listed with its size inferred.
    if (!t.format && is_removed_ggml_type(type)) {
      const std::string what = "removed ggml type " + str(type);
      tensor_problem("bad-tensor-type", type_at,
                     who() + " has " + what + ", expected one of the types `onnxq formats` lists", what);
      sized = false;
    }
    const std::uint64_t offset_at = reader_.offset();
    t.offset_in_data = reader_.read<std::uint64_t>("tensor data offset");
    bool to_infer = false;
    if (sized && t.format) {
      sized = tensor_size(t, dims_at);
    } else if (sized && !is_removed_ggml_type(type)) {
      to_infer = count_elements(t, dims_at);
      sized = false;  // until data_layout infers its size
    }
    if (t.offset_in_data % shard_->alignment != 0) {
      const std::string what =
          "data offset " + str(t.offset_in_data) + " is not a multiple of the alignment " + str(shard_->alignment);
      tensor_problem("unaligned-offset", offset_at, who() + " " + what, what);
    }
    tensors.push_back(std::move(t));
    sized_.push_back(sized);
    to_infer_.push_back(to_infer);
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
  if (!count_elements(t, dims_at)) return false;
  if (!gguf_whole_blocks(f, t.ne)) {
    tensor_problem("not-block-multiple",
                   "has ne0 = " + str(t.ne[0]) + ", expected a multiple of " + str(f.block_elements) + " for " +
                       std::string(f.gguf_name),
                   "ne0 = " + str(t.ne[0]) + " is not a multiple of " + str(f.block_elements) + " for " +
                       std::string(f.gguf_name));
    whole_blocks = false;
  }
  const std::optional<std::uint64_t> size = gguf_blocks_bytes(f, t.ne);
  if (!size) {
    tensor_problem("byte-size-overflow", "byte size overflows 64 bits", "the byte size overflows 63 bits");
    return false;
  }
  t.byte_size = *size;
  return whole_blocks;
}

bool GgufParser::count_elements(TensorInfo& t, std::uint64_t dims_at) {
  const std::optional<std::uint64_t> count = gguf_element_count(t.ne);
  if (!count) {
    problem({"element-count-overflow",
             dims_at,
             "tensor " + quoted(t.name) + " element count overflows 64 bits",
             "the element count overflows 63 bits",
             {},
             t.name});
    return false;
  }
  t.element_count = *count;
  return true;
}

// The data section starts at the aligned end of the tensor infos; each tensor's data must lie in the file.
void GgufParser::data_layout() {
  const std::uint64_t infos_end = reader_.offset();
  const std::uint64_t file_size = reader_.file_size();
  const auto data = gguf_padded(infos_end, shard_->alignment);
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
  const std::uint64_t section = file_size >= *data ? file_size - *data : 0;
  infer_unknown_sizes(section);
  name_fork_layouts(section);
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

// Where tensor i's data may end: the next tensor's offset in data order, or the end of the section.
std::uint64_t GgufParser::room_end(std::size_t i, std::uint64_t section) const {
  const std::uint64_t at = shard_->tensors[i].offset_in_data;
  const auto next = std::upper_bound(data_order_.begin(), data_order_.end(), at);
  return next != data_order_.end() ? *next : std::max(section, at);
}

// An unknown type's size is the room its offset leaves: the gap to the next tensor, or to the end of
// the file. One sweep in data order, so that a file of many such tensors costs n log n.
void GgufParser::infer_unknown_sizes(std::uint64_t section) {
  auto& tensors = shard_->tensors;
  std::vector<std::size_t> order(tensors.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return tensors[a].offset_in_data < tensors[b].offset_in_data; });
  data_order_.clear();
  for (std::size_t i : order) data_order_.push_back(tensors[i].offset_in_data);
  auto holds_data = [&](std::size_t j) { return to_infer_[j] || (sized_[j] && tensors[j].byte_size > 0); };
  std::uint64_t reach = 0;  // the furthest end of the sized data before the current tensor
  std::size_t reacher = 0;  // the tensor that reaches it
  bool any_before = false;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::size_t i = order[k];
    TensorInfo& t = tensors[i];
    if (to_infer_[i]) {
      const std::string what = "tensor " + quoted(t.name) + " of unknown ggml type " + str(t.ggml_type);
      auto cannot = [&](const std::string& why) {
        Problem p{"unknown-type-size",
                  t.info_offset,
                  what + ": " + why + ", so its size cannot be inferred",
                  "unknown ggml type " + str(t.ggml_type) + ": " + why + ", so its size cannot be inferred",
                  {},
                  t.name};
        p.reason_has_offset = false;
        problem(std::move(p));
      };
      // Another tensor with data at the same offset, or sized data that runs past it.
      std::optional<std::size_t> other;
      if (k + 1 < order.size() && data_order_[k + 1] == t.offset_in_data && holds_data(order[k + 1]))
        other = order[k + 1];
      if (k > 0 && data_order_[k - 1] == t.offset_in_data && holds_data(order[k - 1])) other = order[k - 1];
      if (any_before && reach > t.offset_in_data) other = reacher;
      if (t.offset_in_data > section) {
        cannot("its data offset " + str(t.offset_in_data) + " lies past the end of the " + str(section) +
               "-byte data section");
      } else if (other) {
        cannot("its data offset " + str(t.offset_in_data) + " lies inside the data of tensor " +
               quoted(tensors[*other].name));
      } else if (t.element_count > 0 && room_end(i, section) == t.offset_in_data) {
        cannot("no bytes lie between its data offset " + str(t.offset_in_data) + " and the next tensor's");
      } else {
        t.byte_size = t.element_count == 0 ? 0 : room_end(i, section) - t.offset_in_data;
        t.size_inferred = true;
        sized_[i] = true;
        listener_.unknown_type(t);
      }
    }
    if (sized_[i] && t.byte_size > 0) {
      const std::uint64_t end = checked_add(t.offset_in_data, t.byte_size).value_or(UINT64_MAX);
      if (!any_before || end > reach) {
        reach = end;
        reacher = i;
      }
      any_before = true;
    }
  }
}

// A type whose every tensor fits a fork's block layout exactly, where ggml's does not fit them all,
// is named as that fork's in one problem; its tensors are then left unplaced.
void GgufParser::name_fork_layouts(std::uint64_t section) {
  auto& tensors = shard_->tensors;
  const std::uint64_t align = shard_->alignment;
  auto fits = [&](std::size_t i, std::uint64_t size) {
    const std::uint64_t room = room_end(i, section) - std::min(section, tensors[i].offset_in_data);
    return tensors[i].offset_in_data <= section && size <= room && room - size < align;
  };
  for (const gguf_detail::LayoutVariant& v : gguf_detail::layout_variants()) {
    std::vector<std::size_t> of_type;
    bool variant_fits = true, ggml_fits = true;
    for (std::size_t i = 0; i < tensors.size() && variant_fits; ++i) {
      const TensorInfo& t = tensors[i];
      if (t.ggml_type != v.ggml_type || !t.format) continue;
      if (!sized_[i]) variant_fits = false;
      if (!variant_fits) break;
      of_type.push_back(i);
      ggml_fits = ggml_fits && fits(i, t.byte_size);
      const auto size = t.ne[0] % v.block_elements == 0
                            ? checked_mul(t.element_count / v.block_elements, std::uint64_t{v.block_bytes})
                            : std::nullopt;
      variant_fits = size && fits(i, *size);
    }
    if (of_type.empty() || !variant_fits || ggml_fits) continue;
    const BlockFormat& f = *tensors[of_type.front()].format;
    std::string names;
    for (std::size_t k = 0; k < of_type.size() && k < 3; ++k)
      names += (k ? ", " : "") + quoted(tensors[of_type[k]].name);
    if (of_type.size() > 3) names += " and " + str(of_type.size() - 3) + " more";
    const std::string what = std::string(of_type.size() == 1 ? "tensor " : "tensors ") + names + " of type " +
                             std::string(f.gguf_name) + " (" + str(v.ggml_type) +
                             (of_type.size() == 1 ? ") fits" : ") fit") + " the layout of " + v.name + " (" +
                             str(v.block_elements) + " values in " + str(v.block_bytes) + "-byte blocks), not ggml's " +
                             std::string(f.gguf_name) + " (" + str(f.block_elements) + " values in " +
                             str(f.block_bytes) + " bytes); onnxq does not decode that variant";
    Problem p{"fork-layout", tensors[of_type.front()].info_offset, what, what, {}, tensors[of_type.front()].name};
    p.reason_has_offset = false;
    problem(std::move(p));
    for (std::size_t i : of_type) sized_[i] = false;
  }
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

GgufFile GgufParser::parse(std::span<const std::byte> bytes, const std::string& name, std::uint64_t file_size) {
  GgufFile shard;
  shard.path = name;
  shard.bytes = bytes;
  shard.size = file_size;
  ByteReader reader(bytes, name, file_size);
  StopAtFirstProblem first(name);
  GgufParser(reader, first, &shard).run();
  return shard;
}

bool GgufParser::parse(std::span<const std::byte> bytes, const std::string& name, ParseListener& listener,
                       GgufFile& shard) {
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
