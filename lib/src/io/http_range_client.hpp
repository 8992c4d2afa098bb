// Internal: HTTP range requests for one remote file, through one libcurl handle.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "onnxq/io/remote_file.hpp"

namespace onnxq::remote_detail {

class HttpRangeClient {
 public:
  // `name` is what messages call the file (the path the user gave), `url` what is requested.
  HttpRangeClient(std::string name, std::string url, const RemoteOptions& options);
  ~HttpRangeClient();
  HttpRangeClient(const HttpRangeClient&) = delete;
  HttpRangeClient& operator=(const HttpRangeClient&) = delete;

  // The first request: bytes [0, want) (all of a shorter file) into `first`. Learns the file's
  // size and version (ETag, or Last-Modified) that every later answer must match.
  void open(std::uint64_t want, std::vector<std::byte>& first);
  std::uint64_t size() const { return size_; }

  // Exactly dst.size() bytes at `offset`, inside the file. Not thread-safe.
  void fetch(std::uint64_t offset, std::span<std::byte> dst);

  // Another client of the same file version, with its own connection, for fetches side by side
  // with this one's. Safe to call while this client fetches; only after open().
  std::unique_ptr<HttpRangeClient> sibling() const;

 private:
  struct Answer;
  // One request for [offset, offset + capacity) with bounded retries; returns the bytes received.
  std::uint64_t request(std::uint64_t offset, std::byte* dst, std::uint64_t capacity, bool first);
  // Checks an answer: returns true when it may be retried, throws when it is final and bad.
  bool judge(const Answer& a, int code, std::uint64_t offset, std::uint64_t expected, bool first);
  [[noreturn]] void fail_io(const std::string& what, int system_error = 0) const;
  // Later requests carry If-Range with the version open() learned.
  void require_version();

  std::string name_;
  std::string url_;
  RemoteOptions options_;
  void* curl_ = nullptr;             // CURL*
  void* request_headers_ = nullptr;  // curl_slist*: If-Range once the version is known
  std::string token_;
  std::uint64_t size_ = 0;
  std::string etag_;
  std::string last_modified_;
  char error_buffer_[256] = {};
};

}  // namespace onnxq::remote_detail
