// A GGUF model: one file (onnxq/gguf/file.hpp), or all the shards of a gguf-split model, opened
// and checked against each other, their tensors listed as one model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "onnxq/gguf/file.hpp"
#include "onnxq/io/io_options.hpp"

namespace onnxq {

// A shard of a split model whose file is absent.
struct MissingShard {
  int split_number;  // 1-based
  std::string path;
};

// Which shards GgufModel::open reads when a file's name is `<base>-0000K-of-0000N.gguf`.
enum class ShardPolicy {
  All,           // all N; a missing one is Error(Io)
  AllowMissing,  // those present (validated as for All); the others are listed in missing_shards()
  OnlyThisFile,  // the named file alone, as a file of its own (its own metadata; no siblings read)
};

// A GGUF model: one file, or the shards of a gguf-split model.
class GgufModel {
 public:
  // Opens a file or URL (http://, https://, hf://OWNER/REPO[@REVISION]/PATH); if its name is
  // `<base>-0000K-of-0000N.gguf` (or it carries split.count > 1), opens and validates all N
  // shards (see ShardPolicy; shards of a remote model are never taken as missing, only as
  // failing to open). `options` say how the files are read (onnxq/io/io_options.hpp).
  // Throws Error(Io / InvalidInput).
  static GgufModel open(const std::string& path, ShardPolicy policy = ShardPolicy::All, const IoOptions& options = {});
  // Parses bytes the caller keeps alive (tests, fuzzing). `name` is used in messages.
  static GgufModel parse(std::span<const std::byte> bytes, std::string name);

  // The shards present, in shard order.
  const std::vector<GgufFile>& shards() const { return shards_; }
  const GgufFile& primary() const { return shards_.front(); }
  // The file open() was given, among shards().
  const GgufFile& named_shard() const { return shards_.at(named_); }
  // Shards whose files are absent (ShardPolicy::AllowMissing only).
  const std::vector<MissingShard>& missing_shards() const { return missing_; }
  // Metadata of the first shard present.
  const std::vector<GgufKeyValue>& metadata() const { return shards_.front().metadata; }
  const GgufValue* find_metadata(std::string_view key) const;
  // All tensors of all shards, in file order.
  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  const TensorInfo* find_tensor(std::string_view name) const;

  // True when the tensor's shard is read by copies (a remote file), not held in memory.
  bool is_remote(const TensorInfo& tensor) const { return !shards_.at(tensor.shard).source->view(); }
  // The tensor's bytes inside its shard's mapping. Throws Error(Unsupported) for a remote file.
  std::span<const std::byte> tensor_bytes(const TensorInfo& tensor) const;
  // Bytes [offset, offset + length) of the tensor's data, copied into `storage` where the source
  // reads faster than its view (a mapped file, read with pread; a remote file), else a view of
  // the bytes in memory. Throws Error(InvalidArgument) for a range outside the tensor.
  std::span<const std::byte> tensor_bytes(const TensorInfo& tensor, std::uint64_t offset, std::uint64_t length,
                                          std::vector<std::byte>& storage) const;
  // The same, copied into the front of `buffer` (Error(InvalidArgument) when it is shorter than
  // `length` and a copy is needed).
  std::span<const std::byte> tensor_bytes(const TensorInfo& tensor, std::uint64_t offset, std::uint64_t length,
                                          std::span<std::byte> buffer) const;
  // Keeps the memory behind the tensor's shard's views alive (for zero-copy Tensor views).
  std::shared_ptr<const void> keep_alive(const TensorInfo& tensor) const;

 private:
  // Checks the range; the bytes when they are to be handed out as a view, else nullopt (a copy).
  std::optional<std::span<const std::byte>> view_unless_copied(const TensorInfo& tensor, std::uint64_t offset,
                                                               std::uint64_t length) const;
  // Copies the checked range into `dst` (length bytes).
  void copy_tensor_bytes(const TensorInfo& tensor, std::uint64_t offset, std::span<std::byte> dst) const;

  std::vector<GgufFile> shards_;
  std::vector<TensorInfo> tensors_;
  std::vector<MissingShard> missing_;
  std::size_t named_ = 0;
};

}  // namespace onnxq
