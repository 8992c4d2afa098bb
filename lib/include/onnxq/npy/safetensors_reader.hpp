// Reading the safetensors container (the inverse of safetensors_writer.hpp): one .safetensors file,
// or the shards a model.safetensors.index.json lists. The header is untrusted: its length, its JSON,
// every tensor's dtype, shape and data_offsets are checked before anything is read (offsets inside
// the file, end - begin equal to the shape's size, no two tensors overlapping). The dtypes GGUF
// has a type for are accepted (F32, F16, BF16, which a quantizer reads, and F64, I8 ... I64, which
// it copies); any other (U8, BOOL, F8_*) is refused naming the tensor. Tensors keep their names and the header's order
// (the JSON text's order, not sorted); the shards of an index come in the order the index first names them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "onnxq/core/dtype.hpp"
#include "onnxq/io/byte_source.hpp"
#include "onnxq/io/io_options.hpp"

namespace onnxq {

// The longest header accepted (the safetensors library's own limit).
inline constexpr std::uint64_t kSafetensorsMaxHeaderBytes = 100'000'000;

struct SafetensorsTensorInfo {
  std::string name;
  DType dtype = DType::Float;        // Float, Float16, BFloat16, Double, Int8, Int16, Int32 or Int64
  std::vector<std::uint64_t> shape;  // as stored: row-major, the last dimension varies fastest
  std::size_t file = 0;              // index into SafetensorsModel::files()
  std::uint64_t file_offset = 0;     // absolute offset of the first byte in its file
  std::uint64_t byte_size = 0;
  std::uint64_t element_count = 0;

  // GGUF's order (ne[0] is the row length): the shape reversed; a scalar is [1].
  std::vector<std::uint64_t> gguf_ne() const;
};

struct SafetensorsFile {
  std::string path;
  std::shared_ptr<const ByteSource> source;
};

class SafetensorsModel {
 public:
  // A .safetensors file, or an index (a path ending in .json) and the shard files it names, which
  // lie beside it. Throws Error(Io) for a file that cannot be read, Error(InvalidInput) naming the
  // file (and the tensor or field) for whatever breaks the format, Error(Unsupported) naming the
  // tensor for a dtype GGUF has no type for.
  static SafetensorsModel open(const std::string& path, const IoOptions& options = {});
  // One file whose bytes `source` holds (tests, fuzzing); its name() is used in messages.
  static SafetensorsModel from_source(std::shared_ptr<const ByteSource> source);

  const std::vector<SafetensorsFile>& files() const { return files_; }
  const std::vector<SafetensorsTensorInfo>& tensors() const { return tensors_; }
  // The "__metadata__" strings of the first file, in their order.
  const std::vector<std::pair<std::string, std::string>>& metadata() const { return metadata_; }

  // Bytes [offset, offset + dst.size()) of the tensor's data (little-endian, as stored).
  // Throws Error(InvalidArgument) outside the tensor, Error(Io) on a read failure.
  void read(const SafetensorsTensorInfo& tensor, std::uint64_t offset, std::span<std::byte> dst) const;

 private:
  void add_file(std::shared_ptr<const ByteSource> source, const std::string& path, bool keep_metadata);

  std::vector<SafetensorsFile> files_;
  std::vector<SafetensorsTensorInfo> tensors_;
  std::vector<std::pair<std::string, std::string>> metadata_;
};

}  // namespace onnxq
