// A remote file as a ByteSource: range requests through a block cache, so that the many small
// reads of a decoder become a few large requests, and bytes already fetched are not fetched again.
#include <algorithm>
#include <map>
#include <mutex>
#include <vector>

#include "http_range_client.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/remote/remote_file.hpp"

namespace onnxq {
namespace {

using remote_detail::HttpRangeClient;

constexpr std::uint64_t kBlockBytes = 256 * 1024;  // cache unit; also the first request's length
constexpr std::uint64_t kMaxRequestBlocks = 32;    // 8 MiB per request at most
constexpr std::size_t kMaxCachedBlocks = 64;       // 16 MiB of cache

std::mutex options_mutex;
RemoteOptions current_options;

class HttpSource final : public ByteSource {
 public:
  explicit HttpSource(const std::string& path)
      : name_(path), client_(path, resolve_remote_url(path), remote_options()) {
    std::vector<std::byte> first;
    client_.open(kBlockBytes, first);
    if (!first.empty()) insert(0, std::move(first));
  }

  const std::string& name() const override { return name_; }
  std::uint64_t size() const override { return client_.size(); }

  void read(std::uint64_t offset, std::span<std::byte> dst, std::uint64_t read_ahead_end) const override {
    if (offset > size() || dst.size() > size() - offset)
      fail(ErrorKind::Io, name_ + ": internal: read past the end of the " + std::to_string(size()) + "-byte file");
    const std::uint64_t end = offset + dst.size();
    read_ahead_end = std::clamp(read_ahead_end, end, size());
    std::lock_guard lock(mutex_);
    // Each pass copies from one block, fetching it (and the missing blocks after it) first.
    for (std::uint64_t pos = offset; pos < end;) {
      const std::uint64_t index = pos / kBlockBytes;
      auto it = blocks_.find(index);
      if (it == blocks_.end()) it = fetch_from(index, read_ahead_end);
      it->second.last_use = ++clock_;
      const std::uint64_t in_block = pos - index * kBlockBytes;
      const std::uint64_t n = std::min<std::uint64_t>(end - pos, it->second.bytes.size() - in_block);
      std::copy_n(it->second.bytes.begin() + static_cast<std::ptrdiff_t>(in_block), n,
                  dst.begin() + static_cast<std::ptrdiff_t>(pos - offset));
      pos += n;
    }
  }

 private:
  struct Block {
    std::vector<std::byte> bytes;
    std::uint64_t last_use = 0;
  };
  using Blocks = std::map<std::uint64_t, Block>;

  // Fetches block `index` and the missing blocks after it up to `until`, in one request.
  Blocks::iterator fetch_from(std::uint64_t index, std::uint64_t until) const {
    const std::uint64_t last_block = (until + kBlockBytes - 1) / kBlockBytes;  // exclusive
    std::uint64_t count = 1;
    while (count < kMaxRequestBlocks && index + count < last_block && !blocks_.count(index + count)) ++count;
    const std::uint64_t begin = index * kBlockBytes;
    const std::uint64_t length = std::min(count * kBlockBytes, size() - begin);
    std::vector<std::byte> bytes(static_cast<std::size_t>(length));
    client_.fetch(begin, bytes);
    for (std::uint64_t i = 0; i < count; ++i) {
      const auto from = bytes.begin() + static_cast<std::ptrdiff_t>(i * kBlockBytes);
      const auto to = bytes.begin() + static_cast<std::ptrdiff_t>(std::min(length, (i + 1) * kBlockBytes));
      insert(index + i, std::vector<std::byte>(from, to));
    }
    return blocks_.find(index);
  }

  // Adds a block, dropping the least recently used ones beyond the cache size. The blocks of the
  // request in progress are the newest and fewer than the cache holds, so they stay.
  void insert(std::uint64_t index, std::vector<std::byte> bytes) const {
    blocks_[index] = Block{std::move(bytes), ++clock_};
    while (blocks_.size() > kMaxCachedBlocks) {
      auto oldest = std::min_element(blocks_.begin(), blocks_.end(), [](const auto& a, const auto& b) {
        return a.second.last_use < b.second.last_use;
      });
      blocks_.erase(oldest);
    }
  }

  std::string name_;
  mutable std::mutex mutex_;
  mutable HttpRangeClient client_;
  mutable Blocks blocks_;
  mutable std::uint64_t clock_ = 0;
};

}  // namespace

void set_remote_options(const RemoteOptions& options) {
  std::lock_guard lock(options_mutex);
  current_options = options;
}

RemoteOptions remote_options() {
  std::lock_guard lock(options_mutex);
  return current_options;
}

std::shared_ptr<const ByteSource> open_remote_file(const std::string& path) {
  return std::make_shared<HttpSource>(path);
}

}  // namespace onnxq
