// The GGUF writer: header serialization, ggml's layout, the tensors' bytes copied or swapped.
#include "onnxq/gguf/writer.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <set>

#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/formats/byte_order.hpp"
#include "onnxq/gguf/layout.hpp"
#include "onnxq/gguf/limits.hpp"
#include "onnxq/io/copy_range.hpp"

namespace onnxq {

namespace {

// Appends the wire's numbers in one byte order.
class HeaderBytes {
 public:
  explicit HeaderBytes(bool big_endian) : big_endian_(big_endian) {}

  void number(std::uint64_t v, std::uint64_t size) {
    for (std::uint64_t i = 0; i < size; ++i) {
      const std::uint64_t shift = 8 * (big_endian_ ? size - 1 - i : i);
      bytes_.push_back(static_cast<std::byte>((v >> shift) & 0xff));
    }
  }
  void u32(std::uint32_t v) { number(v, 4); }
  void u64(std::uint64_t v) { number(v, 8); }
  void string(std::string_view s) {
    u64(s.size());
    const auto* p = reinterpret_cast<const std::byte*>(s.data());
    bytes_.insert(bytes_.end(), p, p + s.size());
  }
  // A value without its type: what follows the type in a record, or an array's element.
  void payload(const GgufOwnedValue& v) {
    switch (v.type()) {
      case GgufType::String: string(v.text()); return;
      case GgufType::Array:
        u32(static_cast<std::uint32_t>(v.element_type()));
        u64(v.elements().size());
        for (const auto& e : v.elements()) payload(e);
        return;
      default: number(v.raw_bits(), gguf_scalar_size(v.type()));
    }
  }
  void record(const GgufMetadataEntry& e) {
    string(e.key);
    u32(static_cast<std::uint32_t>(e.value.type()));
    payload(e.value);
  }
  void raw(std::span<const std::byte> b) { bytes_.insert(bytes_.end(), b.begin(), b.end()); }

  std::vector<std::byte>& bytes() { return bytes_; }

 private:
  bool big_endian_;
  std::vector<std::byte> bytes_;
};

std::uint64_t metadata_alignment(const GgufMetadata& metadata) {
  const GgufOwnedValue* a = metadata.find("general.alignment");
  if (!a) return kGgufDefaultAlignment;
  if (a->type() != GgufType::UInt32)
    invalid_argument("general.alignment has type " + std::string(gguf_type_name(a->type())) + ", expected u32");
  const std::uint64_t v = a->raw_bits();
  if (!std::has_single_bit(v))
    invalid_argument("general.alignment is " + std::to_string(v) + ", expected a power of two");
  if (v > kGgufMaxAlignment)
    invalid_argument("general.alignment is " + std::to_string(v) + ", more than ggml's limit of " +
                     std::to_string(kGgufMaxAlignment));
  return v;
}

void check_tensor(const GgufWriterTensor& t) {
  if (!t.format) return;  // an unknown type: its stored size is all there is
  std::optional<std::uint64_t> elements = 1;
  for (const std::uint64_t n : t.ne) elements = elements ? checked_mul(*elements, n) : std::nullopt;
  const std::uint64_t block = t.format->block_elements;
  if (!elements || t.ne.empty() || t.ne[0] % block != 0 ||
      checked_mul(*elements / block, t.format->block_bytes) != std::optional<std::uint64_t>(t.byte_size))
    invalid_argument("tensor " + t.name + ": " + std::to_string(t.byte_size) + " bytes do not fit its shape and type " +
                     std::string(t.format->gguf_name));
}

std::vector<std::byte> serialize(const GgufMetadata& metadata, std::span<const GgufWriterTensor> tensors,
                                 std::span<const std::uint64_t> offsets, const GgufWriteOptions& options) {
  HeaderBytes h(options.big_endian);
  // The magic is the bytes "GGUF" in either order, as ggml and gguf_convert_endian.py keep it.
  h.number(kGgufMagic, 4);
  if (options.big_endian) std::reverse(h.bytes().end() - 4, h.bytes().end());
  h.u32(options.version);
  h.u64(tensors.size());
  h.u64(metadata.size());
  for (const auto& e : metadata.entries()) h.record(e);
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    h.string(t.name);
    h.u32(static_cast<std::uint32_t>(t.ne.size()));
    for (const std::uint64_t n : t.ne) h.u64(n);
    h.u32(t.ggml_type);
    h.u64(offsets[i]);
  }
  return std::move(h.bytes());
}

// Bytes of a kGgufPaddingKey record holding a string of n bytes.
std::uint64_t padding_record_bytes(std::uint64_t n) {
  return kGgufStringLengthBytes + kGgufPaddingKey.size() + kGgufValueTypeBytes + kGgufStringLengthBytes + n;
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

}  // namespace

GgufWriterTensor gguf_writer_tensor(const GgufModel& model, const TensorInfo& tensor) {
  const GgufFile& shard = model.shards().at(tensor.shard);
  return GgufWriterTensor{std::string(tensor.name), tensor.ne, tensor.ggml_type,   tensor.format,
                          tensor.byte_size,         &shard,    tensor.file_offset, shard.big_endian};
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
    if (!names.insert(t.name).second) invalid_argument("tensor " + t.name + " appears twice");
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
      const std::uint64_t least = header.size() + padding_record_bytes(0);
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
    if (!t.source) invalid_argument("tensor " + t.name + " has no source");
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
