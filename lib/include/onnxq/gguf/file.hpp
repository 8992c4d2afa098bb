// GGUF reader: parses a memory-mapped GGUF file (v2/v3, either byte order) into
// metadata and tensor descriptors that point into the mapping. Nothing is copied:
// strings, arrays and tensor bytes are views, and large arrays are walked lazily.
// Every size is checked against the bytes that remain before it is used.
// A remote file (http://, https://, hf://) is read through a ByteSource instead: its header
// in growing ranges until it parses, its tensor data only when asked for.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "onnxq/core/byte_source.hpp"
#include "onnxq/core/mapped_file.hpp"
#include "onnxq/core/tensor.hpp"
#include "onnxq/formats/format.hpp"
#include "onnxq/gguf/limits.hpp"

namespace onnxq {

enum class GgufType : std::uint32_t {
  UInt8 = 0,
  Int8 = 1,
  UInt16 = 2,
  Int16 = 3,
  UInt32 = 4,
  Int32 = 5,
  Float32 = 6,
  Bool = 7,
  String = 8,
  Array = 9,
  UInt64 = 10,
  Int64 = 11,
  Float64 = 12,
};
std::string_view gguf_type_name(GgufType type);  // "u8", "i8", ..., "str", "arr"

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
  const BlockFormat* format;      // never null after a successful parse
  std::uint64_t offset_in_data;   // as stored, relative to the data section
  std::uint64_t file_offset;      // absolute offset in its shard file
  std::uint64_t element_count;
  std::uint64_t byte_size;
  std::size_t shard;          // index into GgufFile::shards()
  std::uint64_t info_offset;  // byte offset of its tensor-info record in its shard file

  Shape onnx_shape() const;  // [ne_{n-1}, ..., ne1, ne0]
};

// One parsed GGUF file.
struct GgufShard {
  std::string path;
  int split_number = 0;  // 1-based shard number of a gguf-split model (from the file name), 0 for a lone file
  std::shared_ptr<const MappedFile> file;                // null when parsed from caller memory or remote
  std::span<const std::byte> bytes;                      // the whole file; for a remote file only its header
  std::uint64_t size = 0;                                // the file's size in bytes
  std::shared_ptr<const ByteSource> source;              // remote files: where tensor data is read
  std::shared_ptr<const std::vector<std::byte>> header;  // remote files: owns `bytes`
  std::uint32_t version = 0;
  bool big_endian = false;
  std::uint64_t alignment = kGgufDefaultAlignment;
  std::uint64_t data_offset = 0;
  std::vector<GgufKeyValue> metadata;
  std::vector<TensorInfo> tensors;  // `shard` fields index this shard's position in the model
};

// A shard of a split model whose file is absent.
struct MissingShard {
  int split_number;  // 1-based
  std::string path;
};

// Which shards GgufFile::open reads when a file's name is `<base>-0000K-of-0000N.gguf`.
enum class ShardPolicy {
  All,           // all N; a missing one is Error(Io)
  AllowMissing,  // those present (validated as for All); the others are listed in missing_shards()
  OnlyThisFile,  // the named file alone, as a file of its own (its own metadata; no siblings read)
};

// A GGUF model: one file, or the shards of a gguf-split model.
class GgufFile {
 public:
  // Opens a file or URL (http://, https://, hf://OWNER/REPO[@REVISION]/PATH); if its name is
  // `<base>-0000K-of-0000N.gguf` (or it carries split.count > 1), opens and validates all N
  // shards (see ShardPolicy; shards of a remote model are never taken as missing, only as
  // failing to open). Throws Error(Io / InvalidInput).
  static GgufFile open(const std::string& path, ShardPolicy policy = ShardPolicy::All);
  // Parses bytes the caller keeps alive (tests, fuzzing). `name` is used in messages.
  static GgufFile parse(std::span<const std::byte> bytes, std::string name);

  // The shards present, in shard order.
  const std::vector<GgufShard>& shards() const { return shards_; }
  const GgufShard& primary() const { return shards_.front(); }
  // The file open() was given, among shards().
  const GgufShard& named_shard() const { return shards_.at(named_); }
  // Shards whose files are absent (ShardPolicy::AllowMissing only).
  const std::vector<MissingShard>& missing_shards() const { return missing_; }
  // Metadata of the first shard present.
  const std::vector<GgufKeyValue>& metadata() const { return shards_.front().metadata; }
  const GgufValue* find_metadata(std::string_view key) const;
  // All tensors of all shards, in file order.
  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  const TensorInfo* find_tensor(std::string_view name) const;

  // True when the tensor's shard is read through a ByteSource (a remote file), not mapped.
  bool is_remote(const TensorInfo& tensor) const { return shards_.at(tensor.shard).source != nullptr; }
  // The tensor's bytes inside its shard's mapping. Throws Error(Unsupported) for a remote file.
  std::span<const std::byte> tensor_bytes(const TensorInfo& tensor) const;
  // Bytes [offset, offset + length) of the tensor's data: a view of the mapping, or for a remote
  // file a copy read into `storage`. Throws Error(InvalidArgument) for a range outside the tensor.
  std::span<const std::byte> tensor_bytes(const TensorInfo& tensor, std::uint64_t offset, std::uint64_t length,
                                          std::vector<std::byte>& storage) const;
  // Keeps the mapping of the tensor's shard alive (for zero-copy Tensor views).
  std::shared_ptr<const void> keep_alive(const TensorInfo& tensor) const;

 private:
  std::vector<GgufShard> shards_;
  std::vector<TensorInfo> tensors_;
  std::vector<MissingShard> missing_;
  std::size_t named_ = 0;
};

}  // namespace onnxq
