// The GGUF writer: header serialization, ggml's layout, the tensors' bytes copied or swapped.
#include "onnxq/gguf/writer.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/formats/byte_order.hpp"
#include "onnxq/gguf/layout.hpp"
#include "onnxq/gguf/limits.hpp"
#include "onnxq/gguf/rules.hpp"
#include "onnxq/io/copy_range.hpp"
#include "serializer.hpp"

namespace onnxq {

namespace {

// A value's strings and arrays within ggml's limits, and no array of arrays.
void check_value(std::string_view key, const GgufOwnedValue& v) {
  std::optional<GgufRuleBreak> broken;
  if (v.type() == GgufType::String) broken = gguf_string_length_rule(key, v.text().size());
  if (v.type() == GgufType::Array) {
    broken = gguf_nested_array_rule(key, v.element_type());
    if (!broken) broken = gguf_array_length_rule(key, v.elements().size());
    if (!broken && v.element_type() == GgufType::String)
      for (const GgufOwnedValue& e : v.elements()) check_value(key, e);
  }
  if (broken) invalid_argument(broken->reason);
}

std::uint64_t metadata_alignment(const GgufMetadata& metadata) {
  std::uint64_t i = 0;
  for (const GgufMetadataEntry& e : metadata.entries()) {
    auto broken = gguf_empty_key_rule(i, e.key);
    if (!broken) broken = gguf_key_length_rule(e.key);
    if (!broken) broken = gguf_key_ascii_rule(i, e.key);
    ++i;
    if (broken) invalid_argument(broken->reason);
    check_value(e.key, e.value);
  }
  const GgufOwnedValue* a = metadata.find("general.alignment");
  if (!a) return kGgufDefaultAlignment;
  if (auto broken = gguf_alignment_rule(a->type(), a->raw_bits())) invalid_argument(broken->reason);
  return a->raw_bits();
}

void check_tensor(const GgufWriterTensor& t) {
  const std::string who = "tensor " + gguf_quoted(t.name);
  if (auto broken = gguf_tensor_name_rule(who, t.name)) invalid_argument(broken->reason);
  const GgufTensorSize size = gguf_tensor_size(who, t.ggml_type, t.format, t.ne);
  if (!size.problem.empty()) invalid_argument(size.problem);
  if (size.bytes && *size.bytes != t.byte_size)
    invalid_argument(who + ": " + std::to_string(t.byte_size) + " bytes do not fit its shape and type " +
                     std::string(t.format->gguf_name) + " (" + std::to_string(*size.bytes) + " bytes)");
  if (t.producer && t.source) invalid_argument(who + " has both a source and a producer");
  if (!t.producer && !t.source) invalid_argument(who + " has no source");
}

std::vector<std::byte> serialize(const GgufMetadata& metadata, std::span<const GgufWriterTensor> tensors,
                                 std::span<const std::uint64_t> offsets, const GgufWriteOptions& options) {
  gguf_detail::HeaderSink sink(options.big_endian, /*count_only=*/false);
  gguf_detail::serialize_metadata(sink, metadata, tensors.size(), options.version);
  for (std::size_t i = 0; i < tensors.size(); ++i) gguf_detail::serialize_tensor_info(sink, tensors[i], offsets[i]);
  return sink.take();
}

bool needs_swap(const GgufWriterTensor& t, const GgufWriteOptions& options) {
  return t.source_big_endian != options.big_endian && (!t.format || has_byte_order(*t.format));
}

void write_zeros(AtomicFile& out, std::uint64_t count) {
  static constexpr std::byte kZeros[4096] = {};
  while (count > 0) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(count, sizeof kZeros));
    out.write(kZeros, n);
    count -= n;
  }
}

// Copies a tensor's blocks through memory, reversing each multi-byte number.
void swapped_copy(const GgufWriterTensor& t, const CopySource& from, AtomicFile& out, GgufWriteStats& stats) {
  const std::uint64_t block = t.format->block_bytes;
  const std::uint64_t chunk = std::max<std::uint64_t>(1, (std::uint64_t{4} << 20) / block) * block;
  std::vector<std::byte> buffer(static_cast<std::size_t>(std::min(chunk, t.byte_size)));
  const std::uint64_t end = t.source_offset + t.byte_size;
  for (std::uint64_t at = t.source_offset; at < end;) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(end - at, buffer.size()));
    const std::span<std::byte> part(buffer.data(), n);
    from.read(at, part, end);
    swap_byte_order(*t.format, part);
    out.write(part.data(), part.size());
    at += n;
  }
  from.source().check();
  stats.buffer_copied += t.byte_size;
}

// A produced tensor's bytes, written at the output's position; swapped by whole blocks when the
// producer's byte order is not the file's.
class ProducedSink final : public GgufTensorSink {
 public:
  ProducedSink(const GgufWriterTensor& t, AtomicFile& out, bool swap) : t_(t), out_(out), swap_(swap) {}

  void write(std::span<const std::byte> bytes) override {
    if (bytes.size() > remaining())
      invalid_argument("tensor " + gguf_quoted(t_.name) + ": its producer wrote more than its " +
                       std::to_string(t_.byte_size) + " bytes");
    written_ += bytes.size();
    if (!swap_) return out_.write(bytes.data(), bytes.size());
    // Whole blocks are swapped and written; a partial one waits for the rest of its bytes.
    pending_.insert(pending_.end(), bytes.begin(), bytes.end());
    const std::size_t whole = pending_.size() - pending_.size() % t_.format->block_bytes;
    swap_byte_order(*t_.format, std::span(pending_.data(), whole));
    out_.write(pending_.data(), whole);
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(whole));
  }
  std::uint64_t remaining() const override { return t_.byte_size - written_; }

 private:
  const GgufWriterTensor& t_;
  AtomicFile& out_;
  bool swap_;
  std::uint64_t written_ = 0;
  std::vector<std::byte> pending_;
};

void produce(const GgufWriterTensor& t, AtomicFile& out, bool swap, GgufWriteStats& stats) {
  ProducedSink sink(t, out, swap);
  t.producer(sink);
  if (sink.remaining() != 0)
    invalid_argument("tensor " + gguf_quoted(t.name) + ": its producer wrote " +
                     std::to_string(t.byte_size - sink.remaining()) + " of its " + std::to_string(t.byte_size) +
                     " bytes");
  stats.produced += t.byte_size;
}

}  // namespace

GgufWriterTensor gguf_produced_tensor(std::string name, std::vector<std::uint64_t> ne, const BlockFormat& format,
                                      GgufTensorProducer producer) {
  const std::string who = "tensor " + gguf_quoted(name);
  if (auto broken = gguf_tensor_name_rule(who, name)) invalid_argument(broken->reason);
  const GgufTensorSize size = gguf_tensor_size(who, format.ggml_type, &format, ne);
  if (!size.problem.empty()) invalid_argument(size.problem);
  GgufWriterTensor t;
  t.name = std::move(name);
  t.ne = std::move(ne);
  t.ggml_type = format.ggml_type;
  t.format = &format;
  t.byte_size = *size.bytes;
  t.producer = std::move(producer);
  return t;
}

GgufWriterTensor gguf_writer_tensor(const GgufModel& model, const TensorInfo& tensor) {
  const GgufFile& shard = model.shards().at(tensor.shard);
  GgufWriterTensor t;
  t.name = std::string(tensor.name);
  t.ne = tensor.ne;
  t.ggml_type = tensor.ggml_type;
  t.format = tensor.format;
  t.byte_size = tensor.byte_size;
  t.source = &shard;
  t.source_offset = tensor.file_offset;
  t.source_big_endian = shard.big_endian;
  return t;
}

GgufLayoutPlan gguf_plan(const GgufMetadata& metadata, std::span<const GgufWriterTensor> tensors,
                         const GgufWriteOptions& options) {
  if (!gguf_version_supported(options.version))
    invalid_argument("GGUF version " + std::to_string(options.version) + " cannot be written");
  GgufMetadata md = metadata;
  md.remove(kGgufPaddingKey);
  GgufLayoutPlan plan;
  plan.alignment = metadata_alignment(md);

  std::set<std::string_view> names;
  std::vector<std::uint64_t> sizes;
  for (const auto& t : tensors) {
    if (!names.insert(t.name).second) invalid_argument("tensor " + gguf_quoted(t.name) + " appears twice");
    check_tensor(t);
    sizes.push_back(t.byte_size);
  }
  auto offsets = gguf_tensor_offsets(sizes, plan.alignment);
  if (offsets.size() != tensors.size() + 1) invalid_argument("the tensors' data exceeds 64 bits of offsets");
  const std::uint64_t data_bytes = offsets.back();
  offsets.pop_back();
  plan.tensor_offsets = offsets;

  std::vector<std::byte> header = serialize(md, tensors, offsets, options);
  std::optional<std::uint64_t> data_offset = gguf_padded(header.size(), plan.alignment);
  if (options.data_offset_modulo_block && data_offset) {
    const std::uint64_t want = *options.data_offset_modulo_block % kGgufCloneBlock;
    const bool reachable = plan.alignment < kGgufCloneBlock && want % plan.alignment == 0;
    if (reachable && *data_offset % kGgufCloneBlock != want) {
      // The smallest start past the header and a padding record that has the wanted remainder:
      // the padding string fills the header exactly up to it.
      GgufMetadata empty_padding;
      empty_padding.set(kGgufPaddingKey, GgufOwnedValue::string({}));
      const std::uint64_t least = header.size() + gguf_metadata_bytes(empty_padding) - gguf_metadata_bytes({});
      const std::uint64_t start = least + (want + kGgufCloneBlock - least % kGgufCloneBlock) % kGgufCloneBlock;
      plan.padding_bytes = start - least;
      md.set(kGgufPaddingKey, GgufOwnedValue::string(std::string(plan.padding_bytes, ' ')));
      header = serialize(md, tensors, offsets, options);
      data_offset = start;
    }
  }
  if (!data_offset || !checked_add(*data_offset, data_bytes)) invalid_argument("the file would exceed 64 bits");
  plan.data_offset = *data_offset;
  plan.file_size = *data_offset + data_bytes;
  header.resize(static_cast<std::size_t>(plan.data_offset), std::byte{0});
  plan.header = std::move(header);
  return plan;
}

std::vector<std::string> gguf_unconvertible_tensors(std::span<const GgufWriterTensor> tensors) {
  std::vector<std::string> out;
  for (const auto& t : tensors)
    if (!t.format) out.push_back(t.name + " (type " + std::to_string(t.ggml_type) + ")");
  return out;
}

GgufWriteStats gguf_write(AtomicFile& out, const GgufLayoutPlan& plan, std::span<const GgufWriterTensor> tensors,
                          const GgufWriteOptions& options) {
  if (tensors.size() != plan.tensor_offsets.size()) invalid_argument("the plan was made for other tensors");
  std::vector<std::string> unknown;
  for (const auto& t : tensors) {
    if (needs_swap(t, options) && !t.format) unknown.push_back(t.name + " (type " + std::to_string(t.ggml_type) + ")");
    if (!t.source == !t.producer) invalid_argument("tensor " + gguf_quoted(t.name) + " needs one source or producer");
  }
  if (!unknown.empty()) {
    std::string list;
    for (const auto& u : unknown) list += (list.empty() ? "" : ", ") + u;
    fail(ErrorKind::Unsupported, "cannot change the byte order of tensors of unknown type: " + list);
  }

  GgufWriteStats stats;
  std::map<const GgufFile*, CopySource> sources;
  out.write(plan.header.data(), plan.header.size());
  for (std::size_t i = 0; i < tensors.size();) {
    const auto& t = tensors[i];
    const std::uint64_t at = plan.data_offset + plan.tensor_offsets[i];
    write_zeros(out, at - out.position());
    if (t.producer) {
      produce(t, out, needs_swap(t, options), stats);
      ++i;
      continue;
    }
    auto it = sources.find(t.source);
    if (it == sources.end()) it = sources.emplace(t.source, CopySource(t.source->source, t.source->path)).first;
    if (needs_swap(t, options)) {
      swapped_copy(t, it->second, out, stats);
      ++i;
      continue;
    }
    // Tensors that lie in their source as they will lie in the file (an edit keeps the whole data
    // section so) are copied as one range with the padding between them: one kernel call, whose
    // whole blocks a file system can share.
    const std::uint64_t shift = t.source_offset - at;  // modulo 2^64: only compared
    std::size_t end = i + 1;
    while (end < tensors.size() && tensors[end].source == t.source && !needs_swap(tensors[end], options) &&
           tensors[end].source_offset - (plan.data_offset + plan.tensor_offsets[end]) == shift &&
           tensors[end].source_offset >= tensors[end - 1].source_offset + tensors[end - 1].byte_size)
      ++end;
    const auto& last = tensors[end - 1];
    std::uint64_t length = last.source_offset + last.byte_size - t.source_offset;
    // The file's closing padding too, where the source has the same bytes there.
    const std::uint64_t tail = plan.file_size - (plan.data_offset + plan.tensor_offsets[end - 1] + last.byte_size);
    if (end == tensors.size() && last.source_offset + last.byte_size + tail == t.source->size) length += tail;
    CopyCounts counts;
    copy_range(it->second, t.source_offset, length, out, counts);
    stats.kernel_copied += counts.kernel;
    stats.buffer_copied += counts.buffered;
    i = end;
  }
  write_zeros(out, plan.file_size - out.position());
  return stats;
}

}  // namespace onnxq
