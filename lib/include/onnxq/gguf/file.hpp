// GGUF reader: parses a GGUF file (v2/v3, either byte order) into metadata and tensor
// descriptors. Every file is a ByteSource (onnxq/io/byte_source.hpp). One held in memory (a
// mapping) is parsed in place: strings, arrays and tensor bytes are views, and large arrays are
// walked lazily. Any other (a remote file) has its header read in growing ranges until it
// parses, and its tensor data only when asked for. Every size is checked against the bytes that
// remain before it is used.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "onnxq/core/tensor.hpp"
#include "onnxq/formats/format.hpp"
#include "onnxq/gguf/limits.hpp"
#include "onnxq/gguf/wire.hpp"
#include "onnxq/io/byte_source.hpp"
#include "onnxq/io/io_options.hpp"

namespace onnxq {

class GgufArray;

// One metadata value: a view into the file's bytes.
class GgufValue {
 public:
  GgufType type() const { return type_; }
  bool is_integer() const;

  // Scalars. Each throws Error(InvalidInput) when the type does not match.
  std::uint64_t as_u64() const;  // any unsigned type, or a non-negative signed one
  std::int64_t as_i64() const;   // any integer type that fits
  double as_f64() const;         // float32/float64 (exact widening)
  float as_f32() const;
  bool as_bool() const;  // the stored byte is non-zero
  std::uint8_t bool_byte() const;
  std::string_view as_string() const;
  GgufArray as_array() const;
  // Raw bits of a scalar (after byte-order correction), e.g. a float's bit pattern.
  std::uint64_t raw_bits() const { return bits_; }

 private:
  friend class GgufParser;
  friend class GgufArray;
  GgufType type_ = GgufType::UInt8;
  std::uint64_t bits_ = 0;                  // scalars
  std::string_view text_;                   // strings
  const std::byte* array_begin_ = nullptr;  // arrays: first element
  GgufType elem_type_ = GgufType::UInt8;
  std::uint64_t count_ = 0;
  std::uint64_t array_bytes_ = 0;
  bool big_endian_ = false;
};

// An array value. Elements of fixed size are reached in O(1); strings and
// nested arrays are walked from the start (for_each visits all in one pass).
class GgufArray {
 public:
  GgufType element_type() const { return value_.elem_type_; }
  std::uint64_t size() const { return value_.count_; }
  bool empty() const { return value_.count_ == 0; }
  GgufValue at(std::uint64_t index) const;
  // Visits elements in order until f returns false.
  void for_each(const std::function<bool(const GgufValue&)>& f) const;

 private:
  friend class GgufValue;
  explicit GgufArray(const GgufValue& v) : value_(v) {}
  GgufValue value_;
};

struct GgufKeyValue {
  std::string_view key;
  GgufValue value;
  std::uint64_t offset;  // byte offset of the record in its file
};

struct TensorInfo {
  std::string_view name;
  std::vector<std::uint64_t> ne;  // GGUF order: ne[0] is the row length
  std::uint32_t ggml_type;        // the type id as stored
  // The format of ggml_type; null when onnxq does not know the type (one outside its format
  // table that was never a removed ggml type). Such a tensor is listed, hashed and skipped, never
  // decoded; its byte_size is inferred from the layout (size_inferred).
  const BlockFormat* format;
  std::uint64_t offset_in_data;  // as stored, relative to the data section
  std::uint64_t file_offset;     // absolute offset in its shard file
  std::uint64_t element_count;
  // Known types: the type's size for the shape. Unknown types: the bytes from the tensor's offset
  // to the next tensor's in data order (or to the end of the file), which include the padding a
  // writer put after its data: fewer than `alignment` bytes that cannot be told from data.
  std::uint64_t byte_size;
  bool size_inferred;         // byte_size was inferred from the layout (an unknown type)
  std::size_t shard;          // index into GgufModel::shards()
  std::uint64_t info_offset;  // byte offset of its tensor-info record in its shard file

  Shape onnx_shape() const;       // [ne_{n-1}, ..., ne1, ne0]
  std::string type_name() const;  // the format's GGUF name ("Q8_0"), or "type 142" for an unknown type
};

// One parsed GGUF file.
struct GgufFile {
  std::string path;
  int split_number = 0;  // 1-based shard number of a gguf-split model (from the file name), 0 for a lone file
  std::shared_ptr<const ByteSource> source;  // where the file's bytes are read; never null once opened or parsed
  std::span<const std::byte> bytes;          // what was parsed: the whole file when the source holds it in
                                             // memory (its view()), else only the header, read
  std::shared_ptr<const void> bytes_owner;   // keeps `bytes` alive: the source, or the header read
  std::uint64_t size = 0;                    // the file's size in bytes
  std::uint32_t version = 0;
  bool big_endian = false;
  std::uint64_t alignment = kGgufDefaultAlignment;
  std::uint64_t data_offset = 0;
  std::vector<GgufKeyValue> metadata;
  std::vector<TensorInfo> tensors;  // `shard` fields index this shard's position in the model
};

}  // namespace onnxq
