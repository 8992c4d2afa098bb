// HTTP range requests with libcurl: every answer is checked (status, Content-Range, length,
// version) before its bytes are used, 5xx answers and broken transfers are retried a bounded
// number of times with back-off, and every failure is one line naming the file.
#include "http_range_client.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include "curl_library.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/core/version.hpp"
#include "url.hpp"

namespace onnxq::remote_detail {
namespace {

// An error page is read only this far; the status says enough.
constexpr std::size_t kMaxDiscardedBody = 64 * 1024;
constexpr long kMaxRedirects = 8;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == '\r' || s.back() == '\n' || s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return std::string(s);
}

const char* reason(long code) {
  switch (code) {
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 410: return "Gone";
    case 412: return "Precondition Failed";
    case 416: return "Range Not Satisfiable";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
  }
  return "";
}

std::string status_text(long code) {
  std::string text = "HTTP " + std::to_string(code);
  if (*reason(code)) text += std::string(" ") + reason(code);
  return text;
}

// "bytes FIRST-LAST/TOTAL" (TOTAL may be "*"); false when malformed.
bool parse_content_range(const std::string& value, std::uint64_t& first, std::uint64_t& last, std::uint64_t& total,
                         bool& total_known) {
  unsigned long long a = 0, b = 0, t = 0;
  char star = 0;
  if (std::sscanf(value.c_str(), "bytes %llu-%llu/%llu", &a, &b, &t) == 3) {
    total_known = true;
  } else if (std::sscanf(value.c_str(), "bytes %llu-%llu/%c", &a, &b, &star) == 3 && star == '*') {
    total_known = false;
  } else {
    return false;
  }
  if (b < a || (total_known && b >= t)) return false;
  first = a, last = b, total = t;
  return true;
}

}  // namespace

// What one request brought back.
struct HttpRangeClient::Answer {
  CURL* curl = nullptr;
  std::byte* dst = nullptr;
  std::uint64_t capacity = 0;
  std::uint64_t received = 0;
  std::size_t discarded = 0;
  bool whole_body = false;  // a 200: the server ignored Range (or If-Range found another version)
  bool overflow = false;    // more bytes than asked for
  std::string content_range, etag, last_modified;

  static std::size_t on_header(char* data, std::size_t size, std::size_t n, void* user) {
    auto* a = static_cast<Answer*>(user);
    const std::string_view line(data, size * n);
    if (line.starts_with("HTTP/")) {  // a new response (after a redirect): forget the last one's headers
      a->content_range.clear(), a->etag.clear(), a->last_modified.clear();
      return size * n;
    }
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) return size * n;
    const std::string key = lower(std::string(line.substr(0, colon)));
    const std::string value = trim(line.substr(colon + 1));
    if (key == "content-range") a->content_range = value;
    if (key == "etag") a->etag = value;
    if (key == "last-modified") a->last_modified = value;
    return size * n;
  }

  static std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
    auto* a = static_cast<Answer*>(user);
    const std::size_t bytes = size * n;
    long code = 0;
    curl_library().easy_getinfo(a->curl, CURLINFO_RESPONSE_CODE, &code);
    if (code == 206) {
      if (bytes > a->capacity - a->received) {
        a->overflow = true;
        return 0;  // aborts the transfer
      }
      std::memcpy(a->dst + a->received, data, bytes);
      a->received += bytes;
      return bytes;
    }
    if (code == 200) {
      a->whole_body = true;
      return 0;  // never download a whole file we did not ask for
    }
    a->discarded += bytes;
    return a->discarded > kMaxDiscardedBody ? 0 : bytes;
  }
};

HttpRangeClient::HttpRangeClient(std::string name, std::string url, const RemoteOptions& options)
    : name_(std::move(name)), url_(std::move(url)), options_(options) {
  const CurlLibrary& lib = curl_library();
  CURL* curl = lib.easy_init();
  if (!curl) fail(ErrorKind::Io, name_ + ": cannot start libcurl");
  curl_ = curl;
  const std::string agent = "onnxq/" + std::string(kVersion);
  lib.easy_setopt(curl, CURLOPT_URL, url_.c_str());
  lib.easy_setopt(curl, CURLOPT_USERAGENT, agent.c_str());  // libcurl copies string options
  lib.easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer_);
  lib.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  lib.easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  lib.easy_setopt(curl, CURLOPT_MAXREDIRS, kMaxRedirects);
  lib.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  lib.easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  const long timeout_ms = std::max(1L, std::lround(options_.timeout_seconds * 1000));
  lib.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  // A transfer that moves less than one byte a second for the time-out is given up.
  lib.easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  lib.easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, std::max(1L, (timeout_ms + 999) / 1000));
  // libcurl itself reads no CA environment variables; the curl tool's and OpenSSL's are honoured here.
  if (const char* bundle = std::getenv("CURL_CA_BUNDLE"); bundle && *bundle)
    lib.easy_setopt(curl, CURLOPT_CAINFO, bundle);
  else if (const char* file = std::getenv("SSL_CERT_FILE"); file && *file)
    lib.easy_setopt(curl, CURLOPT_CAINFO, file);
  if (const char* dir = std::getenv("SSL_CERT_DIR"); dir && *dir) lib.easy_setopt(curl, CURLOPT_CAPATH, dir);
  // HF_TOKEN goes to the Hub endpoint only. As a bearer credential libcurl sends it to the
  // first host alone and drops it when a redirect leads elsewhere (the Hub's CDN).
  if (const char* token = std::getenv("HF_TOKEN"); token && *token && url_origin(url_) == url_origin(hf_endpoint())) {
    token_ = token;
    lib.easy_setopt(curl, CURLOPT_HTTPAUTH, static_cast<long>(CURLAUTH_BEARER));
    lib.easy_setopt(curl, CURLOPT_XOAUTH2_BEARER, token_.c_str());
  }
}

HttpRangeClient::~HttpRangeClient() {
  curl_library().slist_free_all(static_cast<curl_slist*>(request_headers_));
  curl_library().easy_cleanup(static_cast<CURL*>(curl_));
}

void HttpRangeClient::fail_io(const std::string& what, int system_error) const {
  std::string where = name_;
  if (url_ != name_) where += " (" + url_ + ")";
  io_error(system_error, where + ": " + what);
}

void HttpRangeClient::open(std::uint64_t want, std::vector<std::byte>& first) {
  first.resize(static_cast<std::size_t>(want));
  const std::uint64_t got = request(0, first.data(), want, true);
  first.resize(static_cast<std::size_t>(got));
  require_version();
}

void HttpRangeClient::require_version() {
  // Later ranges must come from this same version of the file.
  const std::string validator = !etag_.empty() && !etag_.starts_with("W/") ? etag_ : last_modified_;
  if (!validator.empty()) request_headers_ = curl_library().slist_append(nullptr, ("If-Range: " + validator).c_str());
}

std::unique_ptr<HttpRangeClient> HttpRangeClient::sibling() const {
  // Only what open() learned is copied; it never changes after open(), so this client's fetches
  // in progress do not race with the copy.
  auto other = std::make_unique<HttpRangeClient>(name_, url_, options_);
  other->size_ = size_;
  other->etag_ = etag_;
  other->last_modified_ = last_modified_;
  other->require_version();
  return other;
}

void HttpRangeClient::fetch(std::uint64_t offset, std::span<std::byte> dst) {
  if (dst.empty()) return;
  if (offset > size_ || dst.size() > size_ - offset)
    fail_io("internal: range past the end of the " + std::to_string(size_) + "-byte file");
  request(offset, dst.data(), dst.size(), false);
}

std::uint64_t HttpRangeClient::request(std::uint64_t offset, std::byte* dst, std::uint64_t capacity, bool first) {
  CURL* curl = static_cast<CURL*>(curl_);
  const std::string range = std::to_string(offset) + "-" + std::to_string(offset + capacity - 1);
  curl_library().easy_setopt(curl, CURLOPT_RANGE, range.c_str());
  curl_library().easy_setopt(curl, CURLOPT_HTTPHEADER, static_cast<curl_slist*>(request_headers_));
  int delay_ms = options_.retry_delay_ms;
  const int attempts = std::max(1, options_.max_attempts);
  for (int attempt = 1;; ++attempt) {
    Answer a;
    a.curl = curl;
    a.dst = dst;
    a.capacity = capacity;
    error_buffer_[0] = '\0';
    curl_library().easy_setopt(curl, CURLOPT_HEADERFUNCTION, &Answer::on_header);
    curl_library().easy_setopt(curl, CURLOPT_HEADERDATA, &a);
    curl_library().easy_setopt(curl, CURLOPT_WRITEFUNCTION, &Answer::on_body);
    curl_library().easy_setopt(curl, CURLOPT_WRITEDATA, &a);
    const CURLcode code = curl_library().easy_perform(curl);
    const bool retry = judge(a, static_cast<int>(code), offset, capacity, first);
    if (!retry) return a.received;
    if (attempt >= attempts) {
      std::string what = error_buffer_[0] ? error_buffer_ : curl_library().easy_strerror(code);
      long status = 0;
      curl_library().easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
      if (code == CURLE_OK || code == CURLE_WRITE_ERROR) what = status_text(status);
      fail_io(what + " (gave up after " + std::to_string(attempts) + " attempts)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    delay_ms *= 2;
  }
}

// `expected` is the length asked for; the first answer may be shorter (a small file).
bool HttpRangeClient::judge(const Answer& a, int code_int, std::uint64_t offset, std::uint64_t expected, bool first) {
  const auto code = static_cast<CURLcode>(code_int);
  CURL* curl = static_cast<CURL*>(curl_);
  long status = 0;
  curl_library().easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  const std::string range_text = "bytes " + std::to_string(offset) + "-" + std::to_string(offset + expected - 1);
  if (a.overflow) fail_io("the server sent more than the " + std::to_string(expected) + " bytes asked for");
  if (a.whole_body) {
    if (!first && request_headers_)
      fail_io("the file changed on the server while it was being read (If-Range " +
              std::string(etag_.empty() ? last_modified_ : etag_) + " no longer matches)");
    fail_io("the server does not support range requests (it answered 200 with the whole file); onnxq reads " +
            std::string("remote files only in ranges"));
  }
  const bool answered = code == CURLE_OK || (code == CURLE_WRITE_ERROR && status >= 300);
  if (!answered) {
    const std::string what = error_buffer_[0] ? error_buffer_ : curl_library().easy_strerror(code);
    switch (code) {
      case CURLE_PARTIAL_FILE:
      case CURLE_RECV_ERROR:
      case CURLE_SEND_ERROR:
      case CURLE_GOT_NOTHING:
      case CURLE_HTTP2:
      case CURLE_HTTP2_STREAM: return true;  // a dropped or cut-off connection: try again
      case CURLE_OPERATION_TIMEDOUT: fail_io("timed out: " + what);
      default: fail_io(what);
    }
  }
  if (status >= 500) return true;
  if (status == 401 || status == 403)
    fail_io(status_text(status) + (token_.empty()
                                       ? ": access denied; for a gated or private Hugging Face repository set HF_TOKEN"
                                       : ": access denied with the HF_TOKEN given"),
            EACCES);
  if (status == 412) fail_io("the file changed on the server while it was being read (" + status_text(status) + ")");
  if (status == 416)
    fail_io(status_text(status) + ": the server has no " + range_text +
            (first ? " (an empty file?)" : " (the file is shorter than it was)"));
  if (status == 404 || status == 410) fail_io(status_text(status), ENOENT);
  if (status != 206) fail_io(status_text(status) + " for " + range_text);

  std::uint64_t got_first = 0, got_last = 0, total = 0;
  bool total_known = false;
  if (!parse_content_range(a.content_range, got_first, got_last, total, total_known))
    fail_io("HTTP 206 with a missing or malformed Content-Range '" + a.content_range + "'");
  if (first) {
    if (!total_known) fail_io("HTTP 206 without the file size in Content-Range '" + a.content_range + "'");
    size_ = total;
    etag_ = a.etag;
    last_modified_ = a.last_modified;
    expected = std::min<std::uint64_t>(expected, total);
  } else {
    const bool other_size = total_known && total != size_;
    const bool other_tag = !etag_.empty() && !a.etag.empty() && a.etag != etag_;
    if (other_size || other_tag)
      fail_io("the file changed on the server while it was being read (" +
              std::string(other_size ? "size " + std::to_string(size_) + " became " + std::to_string(total)
                                     : "ETag " + etag_ + " became " + a.etag) +
              ")");
  }
  if (got_first != offset || got_last - got_first + 1 != expected)
    fail_io("asked for " + range_text + ", the server sent " + a.content_range);
  if (a.received != expected)
    fail_io("the body ended after " + std::to_string(a.received) + " of the " + std::to_string(expected) +
            " bytes its Content-Range announced");
  return false;
}

}  // namespace onnxq::remote_detail
