// The GGUF header serializer, into bytes or into a count; and the counts the writer's users ask for.
#include "serializer.hpp"

#include <cstring>

namespace onnxq {

namespace gguf_detail {

namespace {

void put_string(HeaderSink& sink, std::string_view s) {
  sink.number(s.size(), kGgufStringLengthBytes);
  sink.raw(s.data(), s.size());
}

// A value without its type: what follows the type in a record, or an array's element.
void put_payload(HeaderSink& sink, const GgufOwnedValue& v) {
  switch (v.type()) {
    case GgufType::String: put_string(sink, v.text()); return;
    case GgufType::Array:
      sink.number(static_cast<std::uint32_t>(v.element_type()), kGgufValueTypeBytes);
      sink.number(v.elements().size(), kGgufArrayLengthBytes);
      for (const auto& e : v.elements()) put_payload(sink, e);
      return;
    default: sink.number(v.raw_bits(), gguf_scalar_size(v.type()));
  }
}

}  // namespace

void HeaderSink::number(std::uint64_t v, std::uint64_t size, bool little) {
  if (count_only_) {
    counted_ += size;
    return;
  }
  const bool big = big_endian_ && !little;
  for (std::uint64_t i = 0; i < size; ++i) {
    const std::uint64_t shift = 8 * (big ? size - 1 - i : i);
    bytes_.push_back(static_cast<std::byte>((v >> shift) & 0xff));
  }
}

void HeaderSink::raw(const void* data, std::size_t size) {
  if (count_only_) {
    counted_ += size;
    return;
  }
  const auto* p = static_cast<const std::byte*>(data);
  bytes_.insert(bytes_.end(), p, p + size);
}

void serialize_metadata(HeaderSink& sink, const GgufMetadata& metadata, std::uint64_t tensor_count,
                        std::uint32_t version) {
  // The magic is the bytes "GGUF" in either order, as ggml and gguf_convert_endian.py keep it.
  sink.number(kGgufMagic, 4, /*little=*/true);
  sink.number(version, 4);
  sink.number(tensor_count, 8);
  sink.number(metadata.size(), 8);
  for (const auto& e : metadata.entries()) {
    put_string(sink, e.key);
    sink.number(static_cast<std::uint32_t>(e.value.type()), kGgufValueTypeBytes);
    put_payload(sink, e.value);
  }
}

void serialize_tensor_info(HeaderSink& sink, const GgufWriterTensor& t, std::uint64_t offset) {
  put_string(sink, t.name);
  sink.number(t.ne.size(), kGgufDimsCountBytes);
  for (const std::uint64_t n : t.ne) sink.number(n, kGgufDimBytes);
  sink.number(t.ggml_type, kGgufTensorTypeBytes);
  sink.number(offset, kGgufDataOffsetBytes);
}

}  // namespace gguf_detail

std::uint64_t gguf_metadata_bytes(const GgufMetadata& metadata) {
  gguf_detail::HeaderSink counter(false, /*count_only=*/true);
  gguf_detail::serialize_metadata(counter, metadata, 0, kGgufMaxVersion);
  return counter.size();
}

std::uint64_t gguf_tensor_info_bytes(const GgufWriterTensor& tensor) {
  gguf_detail::HeaderSink counter(false, /*count_only=*/true);
  gguf_detail::serialize_tensor_info(counter, tensor, 0);
  return counter.size();
}

}  // namespace onnxq
