// A remote file as a ByteSource: range requests through a block cache, so that the many small
// reads of a decoder become a few large requests, and bytes already fetched are not fetched again.
#include <algorithm>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "http_range_client.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/io/remote_file.hpp"

namespace onnxq {
namespace {

using remote_detail::HttpRangeClient;

constexpr std::uint64_t kBlockBytes = 256 * 1024;  // cache unit; also the first request's length
constexpr std::uint64_t kMaxRequestBlocks = 32;    // 8 MiB per request at most
constexpr std::size_t kMaxCachedBlocks = 64;       // 16 MiB of cache

class HttpSource final : public ByteSource {
 public:
  HttpSource(const std::string& path, const RemoteOptions& options)
      : name_(path), client_(path, resolve_remote_url(path), options) {
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
    std::unique_lock lock(mutex_);
    // Each pass copies from one block, fetching it (and the missing blocks after it) first, or
    // waiting for the thread that is fetching it already.
    for (std::uint64_t pos = offset; pos < end;) {
      const std::uint64_t index = pos / kBlockBytes;
      auto it = blocks_.find(index);
      if (it == blocks_.end()) {
        if (in_flight_.count(index))
          fetched_.wait(lock);
        else
          fetch_from(index, read_ahead_end, lock);
        continue;  // look again: the block may have come, or its fetch may have failed
      }
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

  // Fetches block `index` and the missing blocks after it up to `until`, in one request, with
  // `lock` released during the request; returns with it held. The blocks are marked in flight
  // meanwhile: a thread that wants one waits for them rather than asking for the same bytes
  // again, so that threads never fetch the same bytes side by side (each request costs a round
  // trip, and the Hub limits their rate).
  void fetch_from(std::uint64_t index, std::uint64_t until, std::unique_lock<std::mutex>& lock) const {
    const std::uint64_t last_block = (until + kBlockBytes - 1) / kBlockBytes;  // exclusive
    std::uint64_t count = 1;
    while (count < kMaxRequestBlocks && index + count < last_block && !blocks_.count(index + count) &&
           !in_flight_.count(index + count))
      ++count;
    const std::uint64_t begin = index * kBlockBytes;
    const std::uint64_t length = std::min(count * kBlockBytes, size() - begin);
    for (std::uint64_t i = 0; i < count; ++i) in_flight_.insert(index + i);
    // Whatever happens, the blocks stop being in flight and the waiting threads look again.
    struct Landing {
      const HttpSource& self;
      std::unique_lock<std::mutex>& lock;
      std::uint64_t index, count;
      Lease lease;
      ~Landing() {
        if (!lock.owns_lock()) lock.lock();
        for (std::uint64_t i = 0; i < count; ++i) self.in_flight_.erase(index + i);
        self.give_back(std::move(lease));
        self.fetched_.notify_all();
      }
    } landing{*this, lock, index, count, take_client()};
    lock.unlock();
    if (!landing.lease.primary && !landing.lease.sibling) landing.lease.sibling = client_.sibling();
    std::vector<std::byte> bytes(static_cast<std::size_t>(length));
    (landing.lease.primary ? client_ : *landing.lease.sibling).fetch(begin, bytes);
    lock.lock();
    for (std::uint64_t i = 0; i < count; ++i) {
      const auto from = bytes.begin() + static_cast<std::ptrdiff_t>(i * kBlockBytes);
      const auto to = bytes.begin() + static_cast<std::ptrdiff_t>(std::min(length, (i + 1) * kBlockBytes));
      insert(index + i, std::vector<std::byte>(from, to));
    }
  }

  // A client for one request: the first one while it is idle (a single reader keeps its one
  // connection), else another with a connection of its own. Taken and given back under the lock.
  struct Lease {
    bool primary = false;
    std::unique_ptr<HttpRangeClient> sibling;  // null when !primary: the taker makes one
  };
  Lease take_client() const {
    if (!client_busy_) {
      client_busy_ = true;
      return {true, nullptr};
    }
    if (idle_siblings_.empty()) return {};
    Lease lease{false, std::move(idle_siblings_.back())};
    idle_siblings_.pop_back();
    return lease;
  }
  void give_back(Lease lease) const {
    if (lease.primary)
      client_busy_ = false;
    else if (lease.sibling)
      idle_siblings_.push_back(std::move(lease.sibling));
  }

  // Adds a block, dropping the least recently used ones beyond the cache size. The blocks of the
  // request just landed are the newest and fewer than the cache holds, so they stay until the
  // lock is next released.
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
  mutable std::mutex mutex_;  // guards everything below but the requests themselves
  mutable HttpRangeClient client_;
  mutable bool client_busy_ = false;
  mutable std::vector<std::unique_ptr<HttpRangeClient>> idle_siblings_;
  mutable Blocks blocks_;
  mutable std::set<std::uint64_t> in_flight_;  // blocks some thread is fetching
  mutable std::condition_variable fetched_;    // a fetch ended (with its blocks, or failed)
  mutable std::uint64_t clock_ = 0;
};

}  // namespace

std::shared_ptr<const ByteSource> open_remote_file(const std::string& path, const RemoteOptions& options) {
  return std::make_shared<HttpSource>(path, options);
}

}  // namespace onnxq
