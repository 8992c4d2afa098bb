// GgufModel: one GGUF file or all shards of a gguf-split model, as one model.
#include <cerrno>
#include <filesystem>
#include <string_view>
#include <unordered_set>

#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/gguf/model.hpp"
#include "onnxq/gguf/split.hpp"
#include "onnxq/io/memory_source.hpp"
#include "onnxq/io/open_source.hpp"
#include "onnxq/io/remote_file.hpp"
#include "parser.hpp"

namespace onnxq {

namespace {

// The first problem GgufModel::open refuses, as its error.
void refuse_first(const std::vector<GgufSplitProblem>& problems, const std::string& path) {
  for (const GgufSplitProblem& p : problems)
    if (!p.reason.empty()) invalid_input(path + ": " + p.reason);
}

std::optional<std::uint64_t> metadata_u64(const GgufFile& shard, std::string_view key) {
  for (const auto& kv : shard.metadata)
    if (kv.key == key) {
      if (!kv.value.is_integer()) invalid_input(shard.path + ": metadata " + std::string(key) + " is not an integer");
      return kv.value.as_u64();
    }
  return std::nullopt;
}

// A header that is not in memory is read in growing ranges, each new range appended, until it parses.
constexpr std::uint64_t kFirstHeaderBytes = 256 * 1024;
constexpr std::uint64_t kMaxRemoteHeaderBytes = 256ull << 20;

GgufFile parse_read_header(const std::string& path, std::shared_ptr<const ByteSource> source) {
  auto header = std::make_shared<std::vector<std::byte>>();
  std::uint64_t want = std::min(source->size(), kFirstHeaderBytes);
  // Bounded: `want` at least doubles each round and never passes the file size or the cap.
  for (;;) {
    const std::size_t have = header->size();
    header->resize(static_cast<std::size_t>(want));
    source->read(have, std::span(*header).subspan(have), want);
    try {
      GgufFile shard = GgufParser::parse(*header, path, source->size());
      shard.source = std::move(source);
      shard.bytes_owner = std::move(header);
      return shard;
    } catch (const gguf_detail::NeedMoreBytes& more) {
      want = std::min(source->size(), std::max(more.end, 2 * want));
      if (want > kMaxRemoteHeaderBytes)
        fail(ErrorKind::Unsupported, path + ": the header goes on past " + std::to_string(kMaxRemoteHeaderBytes >> 20) +
                                         " MiB; onnxq reads at most that much of a remote file's header");
    }
  }
}

GgufFile open_shard(const std::string& path, const IoOptions& options) {
  auto source = open_source(path, options);
  const auto in_memory = source->view();
  if (!in_memory) return parse_read_header(path, std::move(source));
  GgufFile shard = GgufParser::parse(*in_memory, path, source->size());
  shard.bytes_owner = source;
  shard.source = std::move(source);
  return shard;
}

}  // namespace

Shape TensorInfo::onnx_shape() const {
  Shape shape(ne.rbegin(), ne.rend());
  return shape;
}

std::string TensorInfo::type_name() const {
  return format ? std::string(format->gguf_name) : "type " + std::to_string(ggml_type);
}

GgufModel GgufModel::parse(std::span<const std::byte> bytes, std::string name) {
  GgufModel model;
  model.shards_.push_back(GgufParser::parse(bytes, name, bytes.size()));
  model.shards_.front().source = std::make_shared<const MemorySource>(bytes, std::move(name));
  model.tensors_ = model.shards_.front().tensors;
  return model;
}

GgufModel GgufModel::open(const std::string& path, ShardPolicy policy, const IoOptions& options) {
  GgufModel model;
  const auto split = parse_gguf_split_name(path);
  if (policy == ShardPolicy::OnlyThisFile) {
    model.shards_.push_back(open_shard(path, options));
    if (split) model.shards_.back().split_number = split->number;
  } else if (!split || split->count <= 1) {
    model.shards_.push_back(open_shard(path, options));
    GgufFile& shard = model.shards_.front();
    const auto count = metadata_u64(shard, kGgufSplitCountKey);
    if (count && *count > 1) {
      if (policy != ShardPolicy::AllowMissing) refuse_first(gguf_unsplit_name_problems({.count = count}), path);
      // A renamed shard: its siblings cannot be found, so all of them count as missing (paths unknown).
      const auto no = metadata_u64(shard, kGgufSplitNoKey).value_or(0);
      if (*count > kGgufSplitMaxShards || no >= *count)
        invalid_input(path + ": metadata split.no = " + std::to_string(no) +
                      " and split.count = " + std::to_string(*count) +
                      ", expected split.no < split.count <= " + std::to_string(kGgufSplitMaxShards));
      shard.split_number = static_cast<int>(no) + 1;
      for (int i = 1; i <= static_cast<int>(*count); ++i)
        if (i != shard.split_number) model.missing_.push_back({i, ""});
    }
  } else {
    refuse_first(gguf_split_name_problems(split->number, split->count), path);
    for (int i = 1; i <= split->count; ++i) {
      const std::string p = i == split->number ? path : gguf_split_path(split->base, i, split->count);
      if (i != split->number && !is_remote_path(p) && !std::filesystem::exists(p)) {
        if (policy == ShardPolicy::AllowMissing) {
          model.missing_.push_back({i, p});
          continue;
        }
        io_error(ENOENT, "missing shard " + std::to_string(i) + " of " + std::to_string(split->count) + ": " + p);
      }
      if (i == split->number) model.named_ = model.shards_.size();
      model.shards_.push_back(open_shard(p, options));
      GgufFile& shard = model.shards_.back();
      shard.split_number = i;
      GgufSplitKeys keys;
      keys.no = metadata_u64(shard, kGgufSplitNoKey);
      keys.count = metadata_u64(shard, kGgufSplitCountKey);
      refuse_first(gguf_split_shard_problems(keys, i, split->count), p);
    }
    // Only the first shard's split.tensors.count is read, and only a whole model can be held to it.
    const auto total = metadata_u64(model.shards_.front(), kGgufSplitTensorsCountKey);
    if (model.missing_.empty()) {
      std::vector<GgufSplitShard> set;
      for (const auto& s : model.shards_) set.push_back({{}, s.tensors.size()});
      set.front().keys.tensors_count = total;
      refuse_first(gguf_split_set_problems(set), model.shards_.front().path);
    }
  }
  std::unordered_set<std::string_view> names;
  for (std::size_t s = 0; s < model.shards_.size(); ++s) {
    for (TensorInfo t : model.shards_[s].tensors) {
      t.shard = s;
      if (!names.insert(t.name).second)
        invalid_input(model.shards_[s].path + ": tensor '" + std::string(t.name) +
                      "' also appears in an earlier shard");
      model.tensors_.push_back(std::move(t));
    }
  }
  return model;
}

const GgufValue* GgufModel::find_metadata(std::string_view key) const {
  for (const auto& kv : metadata())
    if (kv.key == key) return &kv.value;
  return nullptr;
}

const TensorInfo* GgufModel::find_tensor(std::string_view name) const {
  for (const auto& t : tensors_)
    if (t.name == name) return &t;
  return nullptr;
}

std::span<const std::byte> GgufModel::tensor_bytes(const TensorInfo& tensor) const {
  const GgufFile& shard = shards_.at(tensor.shard);
  if (tensor.byte_size == 0) return {};
  const auto view = shard.source->view(tensor.file_offset, tensor.byte_size);
  if (!view)
    fail(ErrorKind::Unsupported, shard.path + ": internal: the data of a remote file is read in ranges, not mapped");
  return *view;
}

std::optional<std::span<const std::byte>> GgufModel::view_unless_copied(const TensorInfo& tensor, std::uint64_t offset,
                                                                        std::uint64_t length) const {
  const auto end = checked_add(offset, length);
  if (!end || *end > tensor.byte_size)
    invalid_argument("bytes [" + std::to_string(offset) + ", +" + std::to_string(length) + ") lie outside tensor '" +
                     std::string(tensor.name) + "'");
  if (length == 0) return std::span<const std::byte>{};
  const ByteSource& source = *shards_.at(tensor.shard).source;
  if (source.read_beats_view()) return std::nullopt;
  return source.view(tensor.file_offset + offset, length);
}

void GgufModel::copy_tensor_bytes(const TensorInfo& tensor, std::uint64_t offset, std::span<std::byte> dst) const {
  // Reading on to the tensor's end lets the source fetch the following chunks with this one.
  shards_.at(tensor.shard).source->read(tensor.file_offset + offset, dst, tensor.file_offset + tensor.byte_size);
}

std::span<const std::byte> GgufModel::tensor_bytes(const TensorInfo& tensor, std::uint64_t offset, std::uint64_t length,
                                                   std::vector<std::byte>& storage) const {
  if (const auto view = view_unless_copied(tensor, offset, length)) return *view;
  storage.resize(static_cast<std::size_t>(length));
  copy_tensor_bytes(tensor, offset, storage);
  return storage;
}

std::span<const std::byte> GgufModel::tensor_bytes(const TensorInfo& tensor, std::uint64_t offset, std::uint64_t length,
                                                   std::span<std::byte> buffer) const {
  if (const auto view = view_unless_copied(tensor, offset, length)) return *view;
  if (buffer.size() < length)
    invalid_argument("a buffer of " + std::to_string(buffer.size()) + " bytes cannot hold " + std::to_string(length) +
                     " bytes of tensor '" + std::string(tensor.name) + "'");
  copy_tensor_bytes(tensor, offset, buffer.first(static_cast<std::size_t>(length)));
  return buffer.first(static_cast<std::size_t>(length));
}

std::shared_ptr<const void> GgufModel::keep_alive(const TensorInfo& tensor) const {
  return shards_.at(tensor.shard).bytes_owner;
}

}  // namespace onnxq
