// GgufFile: one GGUF file or all shards of a gguf-split model, as one model.
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <string_view>
#include <unordered_set>

#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/remote/remote_file.hpp"
#include "parser.hpp"

namespace onnxq {

namespace {

// gguf-split numbers shards with 5 digits.
constexpr std::uint64_t kMaxShards = 99999;

// gguf-split names shards `<base>-00001-of-00003.gguf`.
struct SplitName {
  std::string base;
  int index;  // 1-based
  int count;
};

// `<base>-DDDDD-of-DDDDD.gguf`: the suffix has a fixed length, so it is the last 20 characters.
// (Parsed by hand: compiling a std::regex cost more than the rest of `onnxq info`.)
std::optional<SplitName> parse_split_name(const std::string& path) {
  constexpr std::string_view kShape = "-#####-of-#####.gguf";
  if (path.size() < kShape.size()) return std::nullopt;
  const std::string_view suffix = std::string_view(path).substr(path.size() - kShape.size());
  for (std::size_t i = 0; i < kShape.size(); ++i) {
    const bool ok = kShape[i] == '#' ? suffix[i] >= '0' && suffix[i] <= '9' : suffix[i] == kShape[i];
    if (!ok) return std::nullopt;
  }
  return SplitName{path.substr(0, path.size() - kShape.size()), std::stoi(std::string(suffix.substr(1, 5))),
                   std::stoi(std::string(suffix.substr(10, 5)))};
}

std::string shard_path(const SplitName& split, int index) {
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, "-%05d-of-%05d.gguf", index, split.count);
  return split.base + suffix;
}

std::optional<std::uint64_t> metadata_u64(const GgufShard& shard, std::string_view key) {
  for (const auto& kv : shard.metadata)
    if (kv.key == key) {
      if (!kv.value.is_integer()) invalid_input(shard.path + ": metadata " + std::string(key) + " is not an integer");
      return kv.value.as_u64();
    }
  return std::nullopt;
}

// A remote header is read in growing ranges, each new range appended, until it parses.
constexpr std::uint64_t kFirstHeaderBytes = 256 * 1024;
constexpr std::uint64_t kMaxRemoteHeaderBytes = 256ull << 20;

GgufShard open_remote_shard(const std::string& path) {
  auto source = open_remote_file(path);
  auto header = std::make_shared<std::vector<std::byte>>();
  std::uint64_t want = std::min(source->size(), kFirstHeaderBytes);
  // Bounded: `want` at least doubles each round and never passes the file size or the cap.
  for (;;) {
    const std::size_t have = header->size();
    header->resize(static_cast<std::size_t>(want));
    source->read(have, std::span(*header).subspan(have), want);
    try {
      GgufShard shard = GgufParser::parse(*header, path, source->size());
      shard.source = std::move(source);
      shard.header = std::move(header);
      return shard;
    } catch (const gguf_detail::NeedMoreBytes& more) {
      want = std::min(source->size(), std::max(more.end, 2 * want));
      if (want > kMaxRemoteHeaderBytes)
        fail(ErrorKind::Unsupported, path + ": the header goes on past " + std::to_string(kMaxRemoteHeaderBytes >> 20) +
                                         " MiB; onnxq reads at most that much of a remote file's header");
    }
  }
}

GgufShard open_shard(const std::string& path) {
  if (is_remote_path(path)) return open_remote_shard(path);
  auto file = MappedFile::open(path);
  GgufShard shard = GgufParser::parse(file->bytes(), path, file->size());
  shard.file = std::move(file);
  return shard;
}

}  // namespace

Shape TensorInfo::onnx_shape() const {
  Shape shape(ne.rbegin(), ne.rend());
  return shape;
}

GgufFile GgufFile::parse(std::span<const std::byte> bytes, std::string name) {
  GgufFile model;
  model.shards_.push_back(GgufParser::parse(bytes, name, bytes.size()));
  model.tensors_ = model.shards_.front().tensors;
  return model;
}

GgufFile GgufFile::open(const std::string& path, ShardPolicy policy) {
  GgufFile model;
  const auto split = parse_split_name(path);
  if (policy == ShardPolicy::OnlyThisFile) {
    model.shards_.push_back(open_shard(path));
    if (split) model.shards_.back().split_number = split->index;
  } else if (!split || split->count <= 1) {
    model.shards_.push_back(open_shard(path));
    GgufShard& shard = model.shards_.front();
    const auto count = metadata_u64(shard, "split.count");
    if (count && *count > 1) {
      if (policy != ShardPolicy::AllowMissing)
        invalid_input(
            path + ": metadata split.count = " + std::to_string(*count) +
            " but the file name does not follow the <name>-00001-of-0000N.gguf pattern, so its shards cannot be found");
      // A renamed shard: its siblings cannot be found, so all of them count as missing (paths unknown).
      const auto no = metadata_u64(shard, "split.no").value_or(0);
      if (*count > kMaxShards || no >= *count)
        invalid_input(path + ": metadata split.no = " + std::to_string(no) + " and split.count = " +
                      std::to_string(*count) + ", expected split.no < split.count <= " + std::to_string(kMaxShards));
      shard.split_number = static_cast<int>(no) + 1;
      for (int i = 1; i <= static_cast<int>(*count); ++i)
        if (i != shard.split_number) model.missing_.push_back({i, ""});
    }
  } else {
    if (split->index < 1 || split->index > split->count)
      invalid_input(path + ": shard number " + std::to_string(split->index) + " is outside 1.." +
                    std::to_string(split->count));
    for (int i = 1; i <= split->count; ++i) {
      const std::string p = i == split->index ? path : shard_path(*split, i);
      if (i != split->index && !is_remote_path(p) && !std::filesystem::exists(p)) {
        if (policy == ShardPolicy::AllowMissing) {
          model.missing_.push_back({i, p});
          continue;
        }
        io_error(ENOENT, "missing shard " + std::to_string(i) + " of " + std::to_string(split->count) + ": " + p);
      }
      if (i == split->index) model.named_ = model.shards_.size();
      model.shards_.push_back(open_shard(p));
      GgufShard& shard = model.shards_.back();
      shard.split_number = i;
      const auto no = metadata_u64(shard, "split.no");
      const auto count = metadata_u64(shard, "split.count");
      if (count && *count != static_cast<std::uint64_t>(split->count))
        invalid_input(p + ": metadata split.count = " + std::to_string(*count) + ", but the file name says " +
                      std::to_string(split->count) + " shards");
      if (no && *no != static_cast<std::uint64_t>(i - 1))
        invalid_input(p + ": metadata split.no = " + std::to_string(*no) + ", expected " + std::to_string(i - 1) +
                      " for shard " + std::to_string(i));
    }
    const auto total = metadata_u64(model.shards_.front(), "split.tensors.count");
    std::uint64_t found = 0;
    for (const auto& s : model.shards_) found += s.tensors.size();
    if (total && *total != found && model.missing_.empty())
      invalid_input(model.shards_.front().path + ": metadata split.tensors.count = " + std::to_string(*total) +
                    ", but the shards hold " + std::to_string(found) + " tensors");
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

const GgufValue* GgufFile::find_metadata(std::string_view key) const {
  for (const auto& kv : metadata())
    if (kv.key == key) return &kv.value;
  return nullptr;
}

const TensorInfo* GgufFile::find_tensor(std::string_view name) const {
  for (const auto& t : tensors_)
    if (t.name == name) return &t;
  return nullptr;
}

std::span<const std::byte> GgufFile::tensor_bytes(const TensorInfo& tensor) const {
  const GgufShard& shard = shards_.at(tensor.shard);
  if (tensor.byte_size == 0) return {};
  if (shard.source)
    fail(ErrorKind::Unsupported, shard.path + ": internal: the data of a remote file is read in ranges, not mapped");
  return shard.bytes.subspan(static_cast<std::size_t>(tensor.file_offset), static_cast<std::size_t>(tensor.byte_size));
}

std::span<const std::byte> GgufFile::tensor_bytes(const TensorInfo& tensor, std::uint64_t offset, std::uint64_t length,
                                                  std::vector<std::byte>& storage) const {
  const auto end = checked_add(offset, length);
  if (!end || *end > tensor.byte_size)
    invalid_argument("bytes [" + std::to_string(offset) + ", +" + std::to_string(length) + ") lie outside tensor '" +
                     std::string(tensor.name) + "'");
  const GgufShard& shard = shards_.at(tensor.shard);
  if (length == 0) return {};
  if (!shard.source)
    return shard.bytes.subspan(static_cast<std::size_t>(tensor.file_offset + offset), static_cast<std::size_t>(length));
  storage.resize(static_cast<std::size_t>(length));
  // Reading on to the tensor's end lets the source fetch the following chunks with this one.
  shard.source->read(tensor.file_offset + offset, storage, tensor.file_offset + tensor.byte_size);
  return storage;
}

std::shared_ptr<const void> GgufFile::keep_alive(const TensorInfo& tensor) const {
  const GgufShard& shard = shards_.at(tensor.shard);
  if (shard.header) return shard.header;
  return shard.file;
}

}  // namespace onnxq
