// Internal: the one GGUF header serializer. It writes the header into bytes for the writer, or
// only counts them: the size oracle for whoever must know a header's size before writing it (the
// split planner), so no second byte count of the format exists.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "onnxq/gguf/metadata.hpp"
#include "onnxq/gguf/writer.hpp"

namespace onnxq::gguf_detail {

// Where the serializer's bytes go: appended to a vector, or only counted.
class HeaderSink {
 public:
  HeaderSink(bool big_endian, bool count_only) : big_endian_(big_endian), count_only_(count_only) {}

  // A number of `size` bytes in the sink's byte order (`little`: always little-endian).
  void number(std::uint64_t v, std::uint64_t size, bool little = false);
  void raw(const void* data, std::size_t size);
  std::uint64_t size() const { return count_only_ ? counted_ : bytes_.size(); }
  std::vector<std::byte> take() { return std::move(bytes_); }

 private:
  bool big_endian_;
  bool count_only_;
  std::uint64_t counted_ = 0;
  std::vector<std::byte> bytes_;
};

// Magic, version, counts and every metadata record: the header before the tensor infos.
void serialize_metadata(HeaderSink& sink, const GgufMetadata& metadata, std::uint64_t tensor_count,
                        std::uint32_t version);
// One tensor-info record.
void serialize_tensor_info(HeaderSink& sink, const GgufWriterTensor& tensor, std::uint64_t offset);

}  // namespace onnxq::gguf_detail
